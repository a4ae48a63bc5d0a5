"""Reading runs back for people: terminal tables, exports and the HTML report.

- `run_view`: a run folder read for review (every candidate with its code, critic, training and analysis).
- `candidate_view`: one candidate folder read for review, through the verifying reader, its text made inert.
- `tables`: rich renderables for `runs` and `review`.
- `export`: a reward as a standalone module with its provenance.
- `logs`: a run's LLM call log (prompts and responses) for `rewardsmith logs`.
- `report/`: one self-contained HTML page per run or batch.
"""
