"""The search: iterations of designer, critic, trainer and analyzer, then the final retraining.

- `loop`: one run, resumable at candidate granularity. An iteration is one route for its candidates:
  `design_round` (design, critique, repair, screen) -> `rungs` (halving's training jobs) -> `analysis_round`.
- `session`: `Search`, what a run holds while it runs (config, model, executor, the env description built once).
- `design_round`: the designer's round and each candidate's attempt loop (critic, screen, repair requests).
- `analysis_round`: the analyzer over the round's trained candidates.
- `selection`: the noise-aware rule that picks the best candidate (lower confidence bound) and says whether the
  winner is distinguishable from the runner-up.
- `halving`: successive halving of an iteration's candidates over training rungs, resumed from checkpoints (the
  schedule); `rungs`: its jobs (a rung's training, a close candidate's or the last leader's second seed, the first
  cut's screen) and `halving.json` (the one way a candidate is trained in the search); `rung_evidence`: the
  default first rung per task family, with the measured rank correlations behind it (or "no evidence").
- `spread`: the between-seed spread of fitness (measured on second seeds, or the spec's calibration prior), the
  floor under which candidates are not told apart; `evidence`: that floor and the critic's structural warnings,
  read from a run folder; `confidence`: a bootstrap of how sure the search is that its winner is the best.
- `final`: the best candidate's retraining on several seeds (announced, skippable, sharing the search's work),
  `summary.json`.
- `training`: train a reward, then measure the policy in the evaluation worker (the fitness that decides).
- `calibration`: whether a task's search budget tells a good reward from a weak one (`rewardsmith calibrate`),
  and the run-time verdict when a search's top rung carried no signal.
- `saved_policy`: a saved policy measured again by the trusted evaluation worker (`rewardsmith evaluate`).
- `baselines`: the human (env reward) and sparse (success-only) baselines, cached.
- `batch`: one search per task of a list on a shared worker pool.
- `live`, `batch_live`: the live views of a run and of a batch (the progress display; `eta`: time left from
  the run's measured throughput; the progress-count
  bonus is `rewardsmith.reward.progress`).
"""
