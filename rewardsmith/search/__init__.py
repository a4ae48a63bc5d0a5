"""The search: iterations of designer, critic, trainer and analyzer, then the final retraining.

- `loop`: one run, resumable at candidate granularity.
- `final`: selection of the best candidate, its retraining on several seeds, `summary.json`.
- `training`: train a reward, then measure the policy in the evaluation worker (the fitness that decides).
- `baselines`: the human (env reward) and sparse (success-only) baselines, cached.
- `batch`: one search per task of a list on a shared worker pool.
- `progress`, `batch_progress`: live views of a run and of a batch.
"""
