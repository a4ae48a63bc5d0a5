"""Golden prompts: the exact text every model call would receive, checked in under tests/golden/.

A change to what the model sees shows as a diff of these files in review. Rewrite them with
`REWARDSMITH_REWRITE_GOLDEN=1 pytest tests/test_prompts.py` and read the diff before committing.
Iteration 2 is built from a planted run folder: three trained candidates whose analyses come from
`analyze` on planted training metrics, evaluation episodes and a recorded trajectory.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from rewardsmith.cli import app
from rewardsmith.config import RunConfig
from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.records import CandidateRecord, Evaluation, read_record
from rewardsmith.stages.analyzer import analyze, analyzer_messages
from rewardsmith.stages.critic import critic_messages
from rewardsmith.stages.designer import Designer
from rewardsmith.stages.env_description import describe
from rewardsmith.stages.history import prompt_inputs
from rewardsmith.task import load_task, make_env
from rewardsmith.workers.executor import LocalExecutor
from rewardsmith.workers.trajectories import TrajectoryRecorder

EXECUTOR = LocalExecutor(workers=2)
"""The worker pool of this module's stage calls (a stage takes its executor explicitly)."""

GOLDEN = Path(__file__).parent / "golden"
REWRITE = os.environ.get("REWARDSMITH_REWRITE_GOLDEN") == "1"
TASKS = ("hopper-hop", "hopper-backflip")

REWARDS = {
    "hopper-hop": [
        '''import numpy as np

SPEED_SCALE = 1.0


def compute_reward(state, action, next_state):
    components = {
        "forward": SPEED_SCALE * float(next_state.body("torso").linvel[0]),
        "alive": 1.0,
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
''',
        '''import numpy as np


def compute_reward(state, action, next_state):
    components = {
        "forward": float(next_state.body("torso").linvel[0]),
        "effort": -0.01 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
''',
        '''def compute_reward(state, action, next_state):
    components = {"height": float(next_state.body("torso").pos[2])}
    return sum(components.values()), components
''',
    ],
    "hopper-backflip": [
        '''import numpy as np

SPIN_SCALE = 0.1
HEIGHT_TEMP = 0.3


def compute_reward(state, action, next_state):
    pitch_rate = -float(next_state.joint("rooty").qvel)  # a backward rotation makes rooty decrease
    components = {
        "backward_spin": SPIN_SCALE * float(np.clip(pitch_rate, -10, 10)),
        "height": float(np.exp(-max(0.0, 1.25 - next_state.body("torso").pos[2]) / HEIGHT_TEMP)),
        "effort": -0.001 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
''',
        '''import numpy as np


def compute_reward(state, action, next_state):
    components = {
        "spin": 0.1 * float(np.clip(next_state.joint("rooty").qvel, -10, 10)),
        "height": float(next_state.body("torso").pos[2]),
    }
    return sum(components.values()), components
''',
        '''def compute_reward(state, action, next_state):
    components = {"height": float(next_state.body("torso").pos[2])}
    return sum(components.values()), components
''',
    ],
}
FITNESS = (0.62, 0.35, 0.05)
PLANS = {
    "hopper-hop": "The torso's velocity along +x measures progress; I reward it, keep the hopper alive and "
    "penalise effort.",
    "hopper-backflip": "A backward rotation makes rooty decrease, so -rooty.qvel measures the backflip; I reward "
    "it, keep the torso high, and penalise effort.",
}


def render_messages(messages: list[dict[str, str]]) -> str:
    """Messages as a readable file: a header line per message, then its exact content."""
    return "".join(f"=== {m['role']} ===\n{m['content'].rstrip()}\n\n" for m in messages)


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if REWRITE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return
    assert path.is_file(), f"{path} missing: run with REWARDSMITH_REWRITE_GOLDEN=1 to create it"
    expected = path.read_text(encoding="utf-8")
    if text != expected:
        import difflib

        diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), str(path), "now", n=1))
        pytest.fail(f"{name} changed; review the diff and rewrite with REWARDSMITH_REWRITE_GOLDEN=1:\n{diff[:6000]}")


def record_trajectories(task: str, path: Path, episodes: int = 2, steps: int = 60) -> None:
    """Deterministic evaluation episodes (fixed seeds, a fixed action pattern) in the trajectories.npz layout."""
    from rewardsmith.reward.wrappers import ApplyReward

    env = ApplyReward(make_env(load_task(task)), source="native")  # as the evaluation worker records
    recorder = TrajectoryRecorder(env)
    for e in range(episodes):
        env.reset(seed=e)
        recorder.start(env.state)
        for t in range(steps):
            action = np.full(env.action_space.shape, 0.8 * np.sin(0.2 * t + e), dtype=np.float32)
            env.step(action)
            recorder.step(action, env.state)
        recorder.finish(FITNESS[0] - 0.4 * e)
    env.close()
    recorder.save(path)


def plant_candidate(
    folder: RunFolder, task: str, index: int, code: str, fitness: float, critic: dict | None = None
) -> CandidateRecord:
    """A trained candidate: reward.py (and the critic's report `critic`), training metrics, evaluation episodes, its
    analysis."""
    cand = folder.cand_dir(1, index)
    (cand / "eval").mkdir(parents=True)
    (cand / "reward.py").write_text(f"# rewardsmith candidate 1.{index}\n\n{code}")
    if critic is not None:
        (cand / "critic.json").write_text(json.dumps(critic))
    names = re.findall(r'"(\w+)": ', code)  # the candidate's own component names
    metrics = []
    for i in range(6):
        parts = {name: (10.0 + 5 * i) / (k + 1) if name != "effort" else -0.5 - 0.1 * i for k, name in enumerate(names)}
        metrics.append({"kind": "train", "timesteps": 2000 * (i + 1), "ep_len": 100.0 + 40 * i * index,
                        "components": parts, "episodes": 4})
    for i in range(4):
        metrics.append({"kind": "eval", "timesteps": 3000 * (i + 1), "fitness": fitness * (i + 1) / 4,
                        "return": 30.0 * (i + 1), "ep_len": 120.0 + 50 * i, "success_rate": 0.0, "episodes": 2,
                        "pairs": [[30.0 * (i + 1) + k, fitness * (i + 1) / 4 + 0.01 * k] for k in range(2)]})
    (cand / "metrics.jsonl").write_text("".join(json.dumps(m) + "\n" for m in metrics))
    stats = {"torso.x": {"mean": 0.4, "min": 0.0, "max": 0.9, "last": 0.9},
             "rootx.qpos": {"mean": 0.4, "min": 0.0, "max": 0.9, "last": 0.9},
             "torso.y": {"mean": 0.0, "min": 0.0, "max": 0.0, "last": 0.0},
             "rootz.qpos": {"mean": 1.1, "min": 0.6, "max": 1.3, "last": 0.65},
             "rooty.qpos": {"mean": -0.1, "min": -0.3, "max": 0.1, "last": -0.25}}
    episodes = [{"episode": 0, "fitness": fitness, "success": False, "length": 500 if task == "hopper-backflip" else 150,
                 "termination": "truncated" if task == "hopper-backflip" else "terminated", "state_stats": stats},
                {"episode": 1, "fitness": fitness - 0.4, "success": False, "length": 500 if task == "hopper-backflip" else 90,
                 "termination": "truncated" if task == "hopper-backflip" else "terminated", "state_stats": stats}]
    (cand / "eval" / "eval_episodes.jsonl").write_text("".join(json.dumps(e) + "\n" for e in episodes))
    (cand / "eval" / "evaluation.json").write_text(json.dumps({
        "fitness": [e["fitness"] for e in episodes], "success": [False, False], "lengths": [e["length"] for e in episodes],
        "ends": ["time limit" if e["termination"] == "truncated" else "terminated" for e in episodes],
        "fitness_mean": fitness, "fitness_se": 0.05, "success_rate": 0.0}))
    if index == 1:
        record_trajectories(task, cand / "eval" / "trajectories.npz")
    record = CandidateRecord(id=f"1.{index}", iteration=1, index=index, status="trained", fitness=fitness,
                             fitness_se=0.05, episodes=2, success_rate=0.0, timesteps=12000)
    folder.cand(1, index).accept_design()  # the parent's files, signed as the loop signs them
    assert folder.cand(1, index).accept_evaluation(read_record(cand / "eval" / "evaluation.json", Evaluation))
    folder.save_candidate(record)
    analyze(load_task(task), cand, model=None, executor=EXECUTOR, env_description=None)
    return record


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    """One planted run folder per task, after iteration 1."""
    out = {}
    for task in TASKS:
        spec = load_task(task)
        path = tmp_path_factory.mktemp(task)
        folder = RunFolder.create(path, RunConfig(task=task, model="scripted:none"), spec, "scripted:none")
        for j, (code, fitness) in enumerate(zip(REWARDS[task], FITNESS, strict=True), 1):
            plant_candidate(folder, task, j, code, fitness)
        (path / "llm").mkdir()
        reply = f"{PLANS[task]}\n\n```python\n{REWARDS[task][0]}```\n"
        (path / "llm" / "0001_designer.json").write_text(json.dumps({"number": 1, "role": "designer", "response": reply}))
        out[task] = path
    return out


@pytest.mark.parametrize("task", TASKS)
def test_iteration_1_designer_prompt(task: str) -> None:
    spec = load_task(task)
    check_golden(f"{task}.designer-1.txt", render_messages(Designer(None, spec, describe(spec)).prompt()))


@pytest.mark.parametrize("task", TASKS)
def test_iteration_2_designer_prompt(task: str, runs: dict[str, Path]) -> None:
    spec, folder = load_task(task), RunFolder(runs[task])
    best = folder.candidate(1, 1)
    messages = Designer(None, spec, describe(spec)).prompt(**prompt_inputs(folder, 2, best))
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"].startswith(PLANS[task])  # the best reply's reasoning, kept
    feedback = messages[3]["content"]
    assert "## top: candidate 1.2" in feedback and "## bottom: candidate 1.3" in feedback and "```diff" in feedback
    assert "best evaluation episode (fitness 0.62)" in feedback and "ended: " in feedback
    assert "possible reward hacking" not in feedback
    # the reward's components, replayed in a sandboxed worker on the recorded episodes, beside the state
    assert "then your reward's components at that step (computed by the reward on the recorded episode" in feedback
    columns = re.findall(r'"(\w+)": ', REWARDS[task][0])
    assert "  step | torso.x | torso.z | " in feedback and " | ".join(columns) in feedback
    assert "return of your reward" in feedback  # its mean return on the evaluation episodes, replayed
    check_golden(f"{task}.designer-2.txt", render_messages(messages))


def test_the_critics_warnings_that_training_cannot_show_reach_the_next_request(tmp_path: Path) -> None:
    # an accepted reward's critic warnings used to stop at critic.json: the designer never heard of them
    task = "hopper-hop"
    folder = RunFolder.create(tmp_path, RunConfig(task=task, model="scripted:none"), load_task(task), "scripted:none")
    warned = {"accepted": True, "findings": [
        {"stage": "dynamic", "code": "shuttle", "severity": "warning", "message": "it pays for moving back and forth"},
        {"stage": "dynamic", "code": "constant-total", "severity": "warning", "message": "the total is constant"},
    ]}
    best = plant_candidate(folder, task, 1, REWARDS[task][0], FITNESS[0], critic=warned)
    plant_candidate(folder, task, 2, REWARDS[task][1], FITNESS[1], critic={**warned, "findings": warned["findings"][1:]})
    spec = load_task(task)
    feedback = Designer(None, spec, describe(spec)).prompt(**prompt_inputs(folder, 2, best))[-1]["content"]
    assert "the critic accepted this reward with a warning:\n- shuttle: it pays for moving back and forth" in feedback
    assert "the total is constant" not in feedback  # training's analysis shows a constant term itself
    rows = [line for line in feedback.splitlines() if line.startswith("| 1.")]
    assert "critic: shuttle" in rows[0] and "critic:" not in rows[1]


@pytest.mark.parametrize("task", TASKS)
def test_critic_and_analyzer_prompts(task: str, runs: dict[str, Path]) -> None:
    spec = load_task(task)
    smoke = {"evaluated": 256, "total": {"min": 0.4, "mean": 1.2, "max": 2.5},
             "components": {"forward": {"min": -0.6, "mean": 0.2, "max": 1.5}, "alive": {"min": 1, "mean": 1, "max": 1}}}
    critic = critic_messages(spec, REWARDS[task][0], describe(spec), smoke)
    assert "Success: " in critic[0]["content"] and "forward: -0.6 / 0.2 / 1.5" in critic[0]["content"]
    check_golden(f"{task}.critic.txt", render_messages(critic))
    cand = runs[task] / "iter_1" / "cand_1"
    analysis = json.loads((cand / "analysis.json").read_text())
    messages = analyzer_messages(spec, REWARDS[task][0], analysis["feedback"], describe(spec))
    assert "```python" in messages[0]["content"] and "# Environment: Hopper-v5" in messages[0]["content"]
    check_golden(f"{task}.analyzer.txt", render_messages(messages))


def test_prompt_verb_prints_the_messages_with_token_counts(runs: dict[str, Path]) -> None:
    result = CliRunner().invoke(app, ["prompt", "hopper-backflip", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)
    spec = load_task("hopper-backflip")
    assert shown["messages"] == Designer(None, spec, describe(spec)).prompt()
    assert shown["iteration"] == "iteration 1" and len(shown["tokens"]) == 2
    assert shown["total_tokens"] == sum(shown["tokens"]) > 1000
    second = CliRunner().invoke(app, ["prompt", "hopper-backflip", "--iteration-2-from", str(runs["hopper-backflip"])])
    assert second.exit_code == 0, second.output
    assert "iteration 2, sample 1 (emphasis: none): 4 messages" in second.stdout and "assistant (" in second.stdout
    assert "tokens per section" in second.stdout and "user: Feedback on your reward above" in second.stdout
    bad = CliRunner().invoke(app, ["prompt", "hopper-hop", "--iteration-2-from", str(runs["hopper-backflip"])])
    assert bad.exit_code != 0


def test_a_reply_cut_off_inside_its_code_is_asked_again_with_twice_the_cap(tmp_path: Path) -> None:
    from rewardsmith.llm import get_model

    cut = "The plan: reward speed.\n```python\ndef compute_reward(state, action, next_state):\n    speed = float("
    whole = f"The plan: reward speed.\n```python\n{REWARDS['hopper-hop'][0]}```\n"
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps({"role": "designer", "content": c}) + "\n" for c in (cut, whole)))
    model = get_model(f"scripted:{script}", run_dir=tmp_path / "run")
    spec = load_task("hopper-hop")
    designer = Designer(model, spec, describe(spec), max_tokens=1024)
    assert designer.max_tokens == 4096  # room for the analysis and the code
    [design] = designer.sample(designer.prompt(), [0])
    assert design.code is not None and "SPEED_SCALE" in design.code
    calls = [json.loads(p.read_text()) for p in sorted((tmp_path / "run" / "llm").glob("*_designer.json"))]
    assert [c["max_tokens"] for c in calls] == [4096, 8192]


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("hopper-backflip", 'np.clip(-next_state.joint("rooty").qvel'),
        ("hopper-hop", 'next_state.body("torso").linvel[0]'),
        ("reacher-reach", 'next_state.body("fingertip").pos[:2] - next_state.body("target").pos[:2]'),
        ("inverted-double-pendulum-balance", 'next_state.site("tip").pos[2]'),
        ("ant-spin", 'next_state.body("torso").angvel[2]'),
        ("halfcheetah-run-backward", '-float(next_state.body("torso").linvel[0])'),
    ],
)
def test_the_offline_models_example_is_built_from_the_tasks_own_names(task: str, expected: str) -> None:
    """No cart-pole `hinge`/`slider` example: the built-in model copies names that exist in this env."""
    from rewardsmith.llm.local import example_for

    spec = load_task(task)
    example = example_for(Designer(None, spec, describe(spec)).prompt())
    assert expected in example and '"hinge"' not in example and '"slider"' not in example
    assert "for this task, with the names of this environment" in example


def test_the_crossover_request_shows_both_parents_and_asks_to_combine_them() -> None:
    from rewardsmith.stages.designer import Best

    spec = load_task("hopper-hop")
    designer = Designer(None, spec, describe(spec))
    first = Best("1.2", "def compute_reward(state, action, next_state):\n    return 1.0, {'alive': 1.0}", 0.31, 0.2,
                 "alive: mean 1.0 per step")
    second = Best("1.4", "def compute_reward(state, action, next_state):\n    return 2.0, {'up': 2.0}", 0.27, None,
                  "up: mean 2.0 per step")
    messages = designer.crossover(first, second)
    assert [m["role"] for m in messages] == ["system", "user"]
    assert messages[0] == designer.prompt()[0]
    text = messages[1]["content"]
    assert text.startswith(designer.prompt()[1]["content"])  # the task and the environment come first
    assert "Combine the two best rewards" in text and "Candidate 1.2 (fitness 0.31" in text
    for parent in (first, second):
        assert parent.code in text and parent.feedback in text


@pytest.mark.parametrize("task", ["hopper-hop", "metaworld-push", "fetch-push", "lunarlander-land", "adroit-door"])
def test_the_request_ends_with_one_worked_example_of_another_task_of_the_family(task: str) -> None:
    from rewardsmith.stages.worked_example import worked_example
    from rewardsmith.task import task_family

    spec = load_task(task)
    name, code = worked_example(spec)
    other = load_task(name)
    assert name != task and task_family(other) == task_family(spec) and "def compute_reward(" in code
    assert code.split("\n", 1)[1].strip() in other.example_reward.read_text()  # the checked file, docstring cut
    text = Designer(None, spec, describe(spec)).prompt()[1]["content"]
    assert f"# An illustrative example: a checked reward for another task (`{name}`), not this one" in text
    assert text.index("# Task") < text.index("# An illustrative example") < text.index("# Your answer")


def test_a_discrete_tasks_request_shows_a_discrete_tasks_example() -> None:
    """Acrobot's description says "one of 3 discrete choices"; the designer passes that to the example rule, which
    shows the discrete mountain car's example, not pendulum's (its effort term squares the action)."""
    spec = load_task("acrobot-swing-up")
    text = Designer(None, spec, describe(spec)).prompt()[1]["content"]
    assert "one of 3 discrete choices" in text and "`mountaincar-discrete-reach-flag`" in text
    assert "np.square(action)" not in text


def test_a_users_own_env_gets_no_example_from_an_unrelated_family(tmp_path: Path) -> None:
    from rewardsmith.stages.worked_example import worked_example

    (tmp_path / "mine.toml").write_text(
        'name = "mine"\nenv = "CartPole-v1"\ndescription = "Balance the pole upright."\n[fitness]\nscorer = "scorers:FinalDistance"\n'
    )
    assert worked_example(load_task(tmp_path / "mine.toml")) is None


def test_a_repair_for_a_missing_state_attribute_lists_the_valid_ones() -> None:
    from rewardsmith.stages.designer import Design

    spec = load_task("hopper-hop")
    designer = Designer(None, spec, describe(spec))
    sent: list = []
    designer._ask = lambda messages, sample, avoid=None: sent.append(messages) or None  # type: ignore[method-assign]
    previous = Design(text="reply", code="x = 1", error=None, tokens=0, cost_usd=0.0, messages=designer.prompt())
    designer.repair(previous, "AttributeError: 'Body' object has no attribute 'vel'", sample=0)
    request = sent[0][-1]["content"]
    assert "- A `Body` has these attributes and methods: angvel, linvel, pos, quat, xmat." in request


def test_each_sample_of_a_round_gets_its_own_design_emphasis() -> None:
    from rewardsmith.stages.design_emphasis import emphasis_for, with_emphasis

    spec = load_task("hopper-hop")
    base = Designer(None, spec, describe(spec)).prompt()
    asked = [with_emphasis(base, emphasis_for(j)) for j in range(1, 5)]
    assert asked[0] == base and len({m[-1]["content"] for m in asked}) == 4  # four different requests
    assert [emphasis_for(j).name for j in (2, 3, 4)] == ["minimal", "staged", "potential"] and emphasis_for(5) is None
    assert "at most 3 components" in asked[1][-1]["content"]
    shown = CliRunner().invoke(app, ["prompt", "hopper-hop", "--sample", "4", "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["emphasis"] == "potential" and data["messages"] == asked[3]
    assert sum(n for _, n in data["sections"]) > 0.9 * (data["total_tokens"] - 8)


def test_near_identical_best_and_worst_episodes_get_one_trace_and_tiny_values_print_as_zero() -> None:
    from types import SimpleNamespace

    from rewardsmith.stages.feedback import g
    from rewardsmith.stages.reflection import _g, trace_picks

    episodes = [{}, {}, {}]
    close = [SimpleNamespace(fitness=f) for f in (1.00, 0.98, 0.99)]
    assert [label.split()[0] for label, _ in trace_picks(close, episodes)] == ["best"]
    apart = [SimpleNamespace(fitness=f) for f in (1.0, 0.5, 0.9)]
    assert trace_picks(apart, episodes) == [("best", 0), ("worst", 1)]
    assert g(3e-7) == "0" == _g(-2.6e-7) and g(2.61e-5) == "2.61e-05"
