"""Sandboxed worker processes: everything that runs generated code, and the parent side that starts them.

- `job`: `WorkerJob` and `MODES`, the one table of worker modes (entry, outputs, extra inputs).
- `run`: the parent side: write the job, start the worker clean, read back what it wrote as hostile input.
- `executor`, `ray_executor`: where jobs run (a local pool, or a Ray cluster).
- `main`: the worker entry point (`python -I -m rewardsmith.workers.main MODE JOB.json`).
- The modes, one module each, named after the mode: `train` (SB3 training; its only trusted output is the
  policy's weights), `evaluate` (the trusted measurement of a policy, with no reward code loaded), `critic`
  (the critic's dynamic check, a smoke run, with the `shuttle` check on its rollouts played backwards and the
  `state_blind` check of its actions on other states), `screen` (a reward summed over archived episodes), `replay` (a
  trained candidate's reward over chosen episodes for the analyzer, with its parent side and the replay
  machinery `screen` shares), `video` (policy videos); `trajectories` is the archive format the evaluation
  worker writes and the replays read; `lean_torch` the torch settings the training and evaluation workers share
  (less overhead per call, the same results).
"""
