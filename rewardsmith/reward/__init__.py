"""What reward code sees and must keep.

- `contract`: the reward file contract, reading and statically checking reward files, validating results.
- `state`: `State`, the read-only snapshot of the simulator that rewards and scorers read by name.
- `schema`: `StateSchema`, a MuJoCo model's name-to-index maps that `State` reads through, and its `Contact`s.
- `fitness`: `EpisodeScorer`, the base of trusted scorers, and the human-normalised score.
- `wrappers`: `ApplyReward` and the public `RewardWrapper` (a reward file in place of the env's reward).
- `progress`: the optional progress counts: a candidate's `progress(state)`, its checks and the `ProgressBonus`
  wrapper that adds a count-based bonus during training.
- `task_check`: validating a task spec end to end (env, scorer, scorable random/zero-action episodes) before a run.
"""
