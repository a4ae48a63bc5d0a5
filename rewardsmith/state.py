"""Moved to `rewardsmith.reward.state`; kept so scorers copied into older run folders still import."""

from rewardsmith.reward.state import Body, Joint, Site, Snapshotter, State, StateSchema, schema_for

__all__ = ["Body", "Joint", "Site", "Snapshotter", "State", "StateSchema", "schema_for"]
