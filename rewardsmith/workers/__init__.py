"""Sandboxed worker processes: everything that runs generated code, and the parent side that starts them.

- `job`: `WorkerJob` and `MODES`, the one table of worker modes (entry, outputs, extra inputs).
- `run`: the parent side: write the job, start the worker clean, read back what it wrote as hostile input.
- `executor`, `ray_executor`: where jobs run (a local pool, or a Ray cluster).
- `main`: the worker entry point (`python -I -m rewardsmith.workers.main MODE JOB.json`).
- The modes: `train` (SB3 training; its only trusted output is the policy's weights), `evaluate` (the
  trusted measurement of a policy, with no reward code loaded), `smoke` (the critic's dynamic check),
  `replay` (the `screen` mode, and the `replay` mode that runs a trained candidate's reward over its own
  evaluation episodes for the analyzer, with its parent side), `render` (policy videos); `trajectories` is
  the archive format the evaluation worker writes and replay reads.
"""
