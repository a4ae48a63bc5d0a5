"""rewardsmith: an LLM writes reward functions; rewardsmith checks, sandboxes, trains and refines them.

The public API, the one list of what other code may rely on (everything else is internal and may move):

- the `rewardsmith` command (`rewardsmith.cli`), its verbs and options, and the run folder it writes
  (`rewardsmith.run_folder`; its layout is documented in `rewardsmith.run_folder.folder`);
- `rewardsmith.RewardWrapper`: a reward file applied to any Gymnasium env (`rewardsmith.reward.wrappers`);
- for task specs' trusted scorers: `rewardsmith.reward.fitness` (`EpisodeScorer`, `human_normalized`) and
  `rewardsmith.reward.state` (`State`, `Body`, `Joint`, `Site`, `StateSchema`, `Snapshotter`, `schema_for`);
- for reward files: the contract in `rewardsmith.reward.contract` (`compute_reward(state, action, next_state)`).

`rewardsmith.fitness` and `rewardsmith.state` were the scorers' modules before they moved to `rewardsmith.reward`;
scorers copied into older run folders still name them, and their imports are rewritten on load
(`rewardsmith.task.MOVED_MODULES`), so no re-export module is kept.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    """Lazy public API, so `import rewardsmith` stays light: `rewardsmith.RewardWrapper`."""
    if name == "RewardWrapper":
        from rewardsmith.reward.wrappers import RewardWrapper

        return RewardWrapper
    raise AttributeError(f"module 'rewardsmith' has no attribute {name!r}")
