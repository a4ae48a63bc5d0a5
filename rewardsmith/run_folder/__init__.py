"""The run folder: `runs/<task>/<stamp>/`, everything a reviewer needs and everything resume reads.

- `records`: every file name, the typed records (candidate, attempt, summaries, analysis), one tolerant reader.
- `folder`: `RunFolder`, which writes and reads one run folder; its docstring documents the layout.
- `claim`: creating a fresh run folder atomically, or claiming an explicit `--out` one.
- `index`: finding runs and batches under a folder and summarising each in one row.
"""
