"""Moved to `rewardsmith.reward.fitness`; kept so scorers copied into older run folders still import."""

from rewardsmith.reward.fitness import EpisodeScorer, human_normalized

__all__ = ["EpisodeScorer", "human_normalized"]
