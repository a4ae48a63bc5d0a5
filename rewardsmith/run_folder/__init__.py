"""The run folder: `runs/<task>/<stamp>/`, everything a reviewer needs and everything resume reads.

- `names`: every file and folder name, the candidate folder's name, the reward file's header, the `Event` names.
- `records`: the typed records (candidate, attempt, summaries, analysis) and one tolerant reader.
- `proofs`: the parent's proofs (HMAC under the run's key) for the files only the parent may write.
- `candidate`: `CandidateFolder`, one candidate's folder: its paths, typed records and verified reads.
- `folder`: `RunFolder`, which writes and reads one run folder; its docstring documents the layout.
- `claim`: creating a fresh run folder atomically, or claiming an explicit `--out` one.
- `index`: finding runs and batches under a folder and summarising each in one row; the one wording for a
  missing run folder (`require_run_dir`).
"""
