"""Every name in a run folder, in one place: file and folder names, the candidate folder's name, the reward
file's header, and the events of `events.jsonl` (`Event`, which drive status and resume).

The documented layout (`rewardsmith.run_folder.folder`'s docstring) is checked against these names by a test,
so a name cannot change here without the documentation changing with it.
"""

from __future__ import annotations

from enum import StrEnum

# the run
RUN_FILE, EVENTS_FILE, LOCK_FILE, TASK_FILE = "run.json", "events.jsonl", "run.lock", "task.toml"
OWNER_FILE, BEST_DIR, FINAL_DIR, LLM_DIR = ".owner", "best", "final", "llm"
KEY_FILE = ".key"
"""The run's secret for the parent's proofs (mode 600, at the top level, where no worker can read or write)."""
PROOFS_FILE = "proofs.jsonl"
"""The parent's proofs (`rewardsmith.run_folder.proofs`): one line per file the parent wrote or accepted."""
HALVING_FILE, RANDOM_POLICY_DIR = "halving.json", "random_policy"
SPREAD_FILE = "seed_spread.json"
"""Second-seed repeats of close candidates (`rewardsmith.search.spread`): the between-seed floor, kept for resume."""
REPORT_FILE, BATCH_REPORT_FILE = "report.html", "batch_report.html"
# a batch
BATCH_FILE, BATCH_LOCK_FILE, TASK_ERROR_FILE = "batch.json", "batch.lock", "task_error.json"
# a candidate
REWARD_FILE, CANDIDATE_FILE, ATTEMPTS_FILE, ANALYSIS_FILE = (
    "reward.py",
    "candidate.json",
    "attempts.json",
    "analysis.json",
)
CRITIC_FILE, CRITIC_DIR, EVALUATION_FILE = "critic.json", "critic", "evaluation.json"
EMPHASIS_FILE = "emphasis.json"
"""The design emphasis the candidate's sample was asked for (`rewardsmith.stages.design_emphasis`)."""
SCREEN_FILE, SCREEN_DIR, SCREEN_INPUTS_DIR, RUNG_SCREEN_DIR = "screen.json", "screen", "screen_inputs", "rung_screen"
CHECKPOINT_FILE, WARM_START_FILE = "checkpoint.safetensors", "warm_start.safetensors"
REPEAT_DIR, THIRD_SEED_DIR = "second_seed", "third_seed"
"""Below a candidate's folder: its training on a second (a third) seed at one rung's budget (`second_seed/<budget>/`)."""
SEED_DIRS = (REPEAT_DIR, THIRD_SEED_DIR)
"""The folders of a candidate's second and third seed's trainings, in the order of a repeat's seeds after its first."""
VIDEO_DIR, VIDEO_NAMES = "video", ("video.mp4", "video.gif")
# what workers write
SUMMARY_FILE, METRICS_FILE, EPISODES_FILE = "summary.json", "metrics.jsonl", "eval_episodes.jsonl"
TRAJECTORIES_FILE, MODEL_FILE, SANDBOX_FILE = "trajectories.npz", "model.zip", "sandbox.json"
WEIGHTS_FILE = "policy.safetensors"
"""The training worker's only trusted output: the policy's tensors (safetensors, no pickle)."""
EVAL_DIR = "eval"
"""Below a training folder: the evaluation worker's folder. The parent empties and recreates it after training
ended and copies the weights into it, so nothing the training worker wrote can be read from it; it holds
`policy.safetensors` (the parent's copy), `evaluation.json`, `eval_episodes.jsonl`, `trajectories.npz`,
`summary.json`, `sandbox.json`, `job.json` and `worker.log`."""
SMOKE_FILE, FRAMES_FILE, TB_DIR = "smoke.json", "frames.npy", "tb"
JOB_FILE, ERROR_FILE, HEARTBEAT_FILE, LOG_FILE = "job.json", "error.json", "heartbeat", "worker.log"
REPLAY_FILE, RAY_ATTEMPTS_FILE = "replay.json", "ray.json"

HEADER = "# rewardsmith candidate"
"""The first lines of a candidate's `reward.py` start with this (id, iteration, parent, model, contract)."""


def iter_dir_name(iteration: int) -> str:
    """`iter_<i>` relative to the run folder."""
    return f"iter_{iteration}"


def cand_dir_name(iteration: int, index: int) -> str:
    """`iter_<i>/cand_<j>` relative to the run folder."""
    return f"{iter_dir_name(iteration)}/cand_{index}"


def candidate_dir(cid: str) -> str:
    """`iter_<i>/cand_<j>` of a candidate id "i.j"; ValueError for anything else."""
    iteration, dot, index = cid.partition(".")
    if not (dot and iteration.isdigit() and index.isdigit()):
        raise ValueError(f"{cid!r} is not a candidate id (like 2.1)")
    return cand_dir_name(int(iteration), int(index))


def attempt_file(attempt: int, kind: str = "py") -> str:
    """`attempt_<n>.<kind>`: kind "py" (the code), "reply.md", "critic.json" or "screen.json"."""
    return f"attempt_{attempt}.{kind}"


def strip_header(code: str) -> str:
    """A reward file without the header comment the loop adds."""
    lines = code.splitlines()
    while lines and (lines[0].startswith(HEADER) or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines).strip()


class Event(StrEnum):
    """The `event` of each line of `events.jsonl`. Status and resume are read from these."""

    RUN_STARTED = "run_started"
    RUN_RESUMED = "run_resumed"
    RUN_INTERRUPTED = "run_interrupted"
    RUN_FINISHED = "run_finished"
    RUN_FAILED = "run_failed"
    ITERATION_STARTED = "iteration_started"
    ITERATION_DONE = "iteration_done"
    ITERATION_UNPRODUCTIVE = "iteration_unproductive"
    CROSSOVER_REQUESTED = "crossover_requested"
    CANDIDATE_DESIGNED = "candidate_designed"
    CRITIC_DONE = "critic_done"
    REPAIR_REQUESTED = "repair_requested"
    SCREEN_DONE = "screen_done"
    TRAINING_STARTED = "training_started"
    TRAINING_DONE = "training_done"
    RUNG_DONE = "rung_done"
    SEED_REPEATED = "seed_repeated"
    ANALYSIS_DONE = "analysis_done"
    RANDOM_POLICY_EVALUATED = "random_policy_evaluated"
    SEARCH_SIGNAL = "search_signal"
    HUMAN_FEEDBACK = "human_feedback"
    FINAL_STARTED = "final_started"
    FINAL_SKIPPED = "final_skipped"
    FINAL_SEED_DONE = "final_seed_done"
    FINAL_DONE = "final_done"
    PROOFS_ADOPTED = "proofs_adopted"
