"""The offline default on a task it has not seen: the closest shipped example, adapted and labelled a template;
a repeated reply falls back to the next example; a repair that returns the same code ends the repairs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from rewardsmith.cli import app
from rewardsmith.config import RunConfig
from rewardsmith.errors import RewardsmithError
from rewardsmith.llm import engine
from rewardsmith.llm.example_choice import ranked
from rewardsmith.llm.local import LocalModel, example_code, example_lines, task_names
from rewardsmith.llm.template import TEMPLATE_MARK, template_label
from rewardsmith.reward.state import Snapshotter
from rewardsmith.search.loop import run as run_search
from rewardsmith.stages.designer import Designer
from rewardsmith.stages.env_description import describe
from rewardsmith.stages.extract import extract_reward_code
from rewardsmith.task import load_task, make_env

LEFT = "Make the ant move to its left (towards +y) as fast as possible, staying right side up."
ROOT_QVEL = 'root_speed"] = float(next_state.joint("root").qvel)\n    components["x'
"""What the tiny model wrote for an Ant task in the report: the free joint's 6-vector qvel as one float."""


@pytest.fixture(scope="module")
def ant_left() -> list[dict[str, str]]:
    """The designer request of an Ant task no example is for (ant-run's spec with the user's own words)."""
    spec = load_task("ant-run")
    spec = spec.model_copy(update={"name": "ant-left", "description": f"{LEFT}\nIt should not flip over.\n"})
    return Designer(None, spec, describe(spec)).prompt()


@pytest.fixture
def scripted_engine(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The llama.cpp engine replaced by one that always writes ROOT_QVEL; returns the prompts it received."""
    prompts: list[str] = []

    def complete(prompt: str, **_: Any) -> dict[str, Any]:
        prompts.append(prompt)
        return {"text": ROOT_QVEL, "prompt_tokens": 10, "completion_tokens": 5, "finish_reason": "stop"}

    monkeypatch.setattr(engine, "complete", complete)
    monkeypatch.setattr(engine, "tokens", lambda text: len(text) // 4)
    return prompts


def ask(model: LocalModel, messages: list[dict[str, str]], sample: int, avoid: list[str] | None = None) -> str:
    """The reply to one designer request; `avoid`: the run's earlier codes, as the designer passes them."""
    return model.complete(
        messages, role="designer", sample=sample, temperature=1.0, max_tokens=384, avoid=avoid or []
    ).text


def test_an_unseen_ant_task_gets_ant_run_adapted_to_its_direction(ant_left, scripted_engine, tmp_path):
    model = LocalModel(run_dir=tmp_path, use_cache=False)
    reply = ask(model, ant_left, 0)
    assert not scripted_engine  # the round's first sample is the example: the model was not asked
    code = extract_reward_code(reply)
    assert "not designed by a model" in reply and "`ant-run`" in template_label(code)
    assert code.startswith(TEMPLATE_MARK) and "pos y" in template_label(code)
    # it measures the task: its motion term is the torso's +y velocity on real Ant states
    scope: dict[str, Any] = {}
    exec(compile(code, "<adapted>", "exec"), scope)  # our own template's code, run here on purpose
    env = make_env(load_task("ant-run"))
    snap = Snapshotter(env)
    obs, _ = env.reset(seed=0)
    before = snap(obs)
    for _ in range(5):
        obs, *_ = env.step(env.action_space.sample())
    after = snap(obs)
    _, parts = scope["compute_reward"](before, np.zeros(8), after)
    y0, y1 = before.body("torso").pos[1], after.body("torso").pos[1]
    assert parts["velocity_pos_y"] == pytest.approx((y1 - y0) / after.dt)
    env.close()


@pytest.mark.parametrize(
    ("words", "sign"), [("Either way is fine.", 1.0), ("Turn clockwise.", -1.0), ("Turn counter-clockwise.", 1.0)]
)
def test_the_spin_template_pays_one_way_so_rocking_earns_nothing(words: str, sign: float) -> None:
    # |yaw rate| paid rocking to and fro, which turns the body nowhere (ant-spin's scorer counts net turns)
    spec = load_task("ant-spin")
    spec = spec.model_copy(update={"description": f"Make the ant spin in place. {words}\n"})
    code = example_code(task_names(Designer(None, spec, describe(spec)).prompt()))
    scope: dict[str, Any] = {}
    exec(compile(code, "<template>", "exec"), scope)  # our own template's code, run here on purpose
    env = make_env(spec)
    snap = Snapshotter(env)
    obs, _ = env.reset(seed=0)
    env.action_space.seed(0)
    states = [snap(obs)]
    for _ in range(60):
        states[-1].freeze()  # a snapshot reads the live simulation until frozen
        obs, *_ = env.step(env.action_space.sample())
        states.append(snap(obs))
    env.close()
    spins = [scope["compute_reward"](a, np.zeros(8), b)[1]["spin"] for a, b in zip(states, states[1:])]
    rates = [b.body("torso").angvel[2] for b in states[1:]]
    assert min(rates) < 0 < max(rates)  # random jitter turns both ways
    assert spins == pytest.approx([0.1 * sign * float(np.clip(r, -5, 5)) for r in rates])  # the wrong way costs


def test_without_a_fitting_example_the_first_sample_is_the_description_template(scripted_engine, tmp_path):
    spec = load_task("reacher-reach")  # no other example can run on Reacher
    messages = Designer(None, spec, describe(spec)).prompt()
    reply = ask(LocalModel(run_dir=tmp_path, use_cache=False), messages, 0)
    assert not scripted_engine and "Template, not designed by a model" in reply
    code = extract_reward_code(reply)
    assert template_label(code).startswith("fixed template filled from the description")
    assert 'body("fingertip")' in code and 'body("target")' in code


def test_the_other_samples_fill_the_template_and_say_so(ant_left, scripted_engine, tmp_path):
    model = LocalModel(run_dir=tmp_path, use_cache=False)
    reply = ask(model, ant_left, 1)
    assert len(scripted_engine) == 1 and "Template, not designed by a model" in reply
    code = extract_reward_code(reply)
    assert 'joint("root").qvel' not in code  # the line that cannot run is left out
    assert template_label(code).startswith("fixed template")


def test_a_reply_that_repeats_tried_code_falls_back_to_the_next_example(ant_left, scripted_engine, tmp_path):
    model = LocalModel(run_dir=tmp_path, use_cache=False)
    example = ask(model, ant_left, 0)  # the round's first sample: ant-run adapted
    round_codes = [extract_reward_code(example)]
    first = ask(model, ant_left, 1, round_codes)
    repair = [*ant_left, {"role": "assistant", "content": first}, {"role": "user", "content": "Fix: NameError."}]
    again = ask(model, repair, 1, round_codes)  # the scripted engine writes the same lines: the same code
    # not ant-run adapted: that is what the round's first sample (0) was handed, so it would be a duplicate too
    second = ranked(task_names(ant_left), "Ant-v5", LEFT.lower())[1].task
    assert "repeated code already in this conversation" in again
    assert f"`{second}`" in template_label(extract_reward_code(again))
    # a template the critic rejected is followed by the next closest example, never by itself
    retry = ask(model, [*ant_left, {"role": "assistant", "content": example}, {"role": "user", "content": "Fix."}], 0)
    assert f"`{second}`" in template_label(extract_reward_code(retry))


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("halfcheetah-run", "halfcheetah-run-backward"),  # same env, the other direction: adapted
        ("metaworld-push", "metaworld-pick-place"),  # moves the puck to the goal too
        ("reacher-reach", None),  # no example can run on Reacher but its own: the filled template
        ("ant-spin", None),  # ant-run shares no task word with spinning
        ("hopper-backflip", None),  # ant-spin's yaw is no backflip ("rotate backwards" named both): the template
        ("pendulum-swing-up", None),  # pendulum-hold-tilted's asks for theta = +0.3, this task for upright
        ("pendulum-hold-tilted", None),  # and the swing-up's holds it upright, not at the tilt asked for
        ("cartpole-hold-right", None),  # no other example runs on CartPole
    ],
)
def test_the_task_own_example_is_never_chosen(task: str, expected: str | None) -> None:
    spec = load_task(task)
    names = task_names(Designer(None, spec, describe(spec)).prompt())
    choices = [ex.task for ex in ranked(names, spec.env, names["task_line"])]
    assert task not in choices and (choices[0] if choices else None) == expected


@pytest.mark.parametrize(
    ("task", "kept"),
    [
        ("ant-run", "halfcheetah-run"),  # the one already going forward
        ("hopper-hop", "halfcheetah-run"),  # and at the pair's closer place, before walker2d-walk's example
        ("ant-left", "halfcheetah-run-backward"),  # neither goes left: the closer (shorter) one, turned to +y
    ],
)
def test_a_mirrored_pair_of_examples_is_offered_once(task: str, kept: str, ant_left) -> None:
    """halfcheetah-run and -backward are one reward pointed two ways: adapted to any direction each becomes the other,
    so a task is offered one of them, not the same reward twice (both were offered before)."""
    spec = load_task("ant-run" if task == "ant-left" else task)
    names = task_names(ant_left if task == "ant-left" else Designer(None, spec, describe(spec)).prompt())
    choices = [ex.task for ex in ranked(names, spec.env, names["task_line"])]
    assert [c for c in choices if c.startswith("halfcheetah-run")] == [kept]
    if task != "ant-left":  # at the pair's closer place: the first pick is the same reward as before, named truly
        assert choices[0] == kept


def test_a_repair_that_returns_the_same_code_ends_the_repairs(tiny_spec, tmp_path, monkeypatch):
    """The critic rejects the first reply; the repair returns it unchanged (a comment aside). Without the check the
    loop would ask twice more and run out of script."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    bad = "import os\nimport numpy as np\n\n\ndef compute_reward(state, action, next_state):\n    return 0.0, {}\n"
    script = tmp_path / "script.jsonl"
    lines = [f"```python\n{bad}```\n", f"Fixed.\n```python\n# fixed\n{bad}```\n"]
    script.write_text("".join(json.dumps({"role": "designer", "content": c}) + "\n" for c in lines))
    spec_path = tiny_spec("inverted-double-pendulum-balance", timesteps=2048, eval_episodes=3)
    config = RunConfig(
        task=str(spec_path),
        model=f"scripted:{script}",
        iterations=1,
        samples=1,
        repair_rounds=3,
        iteration_retries=0,
        workers=1,
        final_seeds=0,
        out=tmp_path / "run",
    )
    with pytest.raises(RewardsmithError, match="could be trained"):
        run_search(config)
    attempts = json.loads((tmp_path / "run/iter_1/cand_1/attempts.json").read_text())
    assert len(attempts) == 2 and attempts[1]["findings"][0].startswith("[repeat]")


@pytest.mark.slow
def test_a_template_candidate_is_labelled_in_the_output_and_summary(tiny_spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    code = (Path(__file__).parents[1] / "envs/examples/inverted_double_pendulum_balance.py").read_text()
    reply = f"```python\n{TEMPLATE_MARK} shipped example `x`, used as it is; not designed by a model\n{code}```\n"
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"role": "designer", "content": reply}) + "\n")
    spec_path = tiny_spec("inverted-double-pendulum-balance", timesteps=1024, eval_episodes=3)
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(spec_path),
            "--model",
            f"scripted:{script}",
            "--iterations",
            "1",
            "--samples",
            "1",
            "--workers",
            "1",
            "--final-seeds",
            "0",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "1.1 is a template, not designed by a model: shipped example `x`, used as it is; not" not in text  # once
    assert "1.1 is a template, not designed by a model: shipped example `x`" in text
    assert "TEMPLATE (shipped example `x`" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["templates"] == {"1.1": "shipped example `x`, used as it is"}


@pytest.mark.parametrize("task", ["adroit-door", "adroit-hammer", "shadowhand-block-rotate-z"])
def test_the_names_are_read_from_a_hands_grouped_tables(task: str) -> None:
    """The hand prompts group joints by finger (`FFJ{3, 2, 1, 0} [6:10]`, `likewise MFJ{..}`) and write sites as
    products (`Tch_{ff, mf}{proximal, tip}`); the offline model must still find every name the env has."""
    import mujoco

    spec = load_task(task)
    names = task_names(Designer(None, spec, describe(spec)).prompt())
    model = make_env(spec).unwrapped.model

    def every(kind: mujoco.mjtObj, count: int) -> set[str]:
        return {mujoco.mj_id2name(model, kind, i) for i in range(count)}

    assert {j[0] for j in names["joints"]} == every(mujoco.mjtObj.mjOBJ_JOINT, model.njnt)
    assert set(names["sites"]) == every(mujoco.mjtObj.mjOBJ_SITE, model.nsite)
    assert set(names["bodies"]) <= every(mujoco.mjtObj.mjOBJ_BODY, model.nbody)
    kinds = {name: kind for name, kind, _ in names["joints"]}
    for i in range(model.njnt):
        expected = {0: "free", 1: "ball", 2: "slide", 3: "hinge"}[int(model.jnt_type[i])]
        assert kinds[mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, i)] == expected


@pytest.mark.parametrize(
    ("line", "kept"),
    [
        ('components["effort"] = np.sum(np.square(action))', False),
        ('components["effort"] = 0.1 * float(np.abs(action).sum())', False),
        ('components["effort"] = float(np.linalg.norm(action))', False),
        ('components["effort"] = -0.001 * float(np.sum(np.square(action)))', True),
        ('components["effort"] = -np.sum(np.square(action))', True),
        ('components["calm"] = float(np.exp(-np.sum(np.square(action))))', True),
    ],
)
def test_a_line_that_pays_for_effort_is_not_kept(line: str, kept: bool) -> None:
    """The tiny model wrote `components["effort"] = np.sum(np.square(action))`: a reward for effort, not a cost."""
    from rewardsmith.llm.template import component_line

    names = {"bodies": ["torso"], "joints": [], "sites": [], "arrays": {}}
    assert (component_line(line, names) is not None) is kept


def test_a_reply_equal_to_the_rounds_template_becomes_a_distinct_variant(monkeypatch, tmp_path):
    """The tiny model copies the example it is shown, which is the round's own template: on a task with no other
    example to adapt (IDP, the README's first command), samples 1 and 2 wrote the code sample 0 already had, and the
    run rejected them as duplicates. Told the codes of the samples before it (as the designer asks them), each now
    gets its own variant of the template, all distinct and runnable."""
    spec = load_task("inverted-double-pendulum-balance")
    messages = Designer(None, spec, describe(spec)).prompt()
    shown = extract_reward_code(
        LocalModel(run_dir=tmp_path, use_cache=False)
        .complete(messages, role="designer", sample=0, temperature=1.0, max_tokens=384)
        .text
    )
    copied = shown.split('components["', 1)[1].rsplit("\n    total", 1)[0]  # the component lines, as the model copies

    def complete(prompt: str, **_: Any) -> dict[str, Any]:
        return {"text": copied, "prompt_tokens": 10, "completion_tokens": 5, "finish_reason": "stop"}

    monkeypatch.setattr(engine, "complete", complete)
    monkeypatch.setattr(engine, "tokens", lambda text: len(text) // 4)
    model = LocalModel(run_dir=tmp_path, use_cache=False)
    codes: list[str] = []
    for k in range(3):
        codes.append(extract_reward_code(ask(model, messages, k, codes)))
    assert [c.splitlines()[1:] for c in codes].count(codes[0].splitlines()[1:]) == 1, codes  # no copy of sample 0
    assert len({"\n".join(c.splitlines()[1:]) for c in codes}) == 3, codes
    env = make_env(spec)
    snap = Snapshotter(env)
    obs, _ = env.reset(seed=0)
    before = snap(obs)
    obs, *_ = env.step(env.action_space.sample())
    after = snap(obs)
    for code in codes:
        scope: dict[str, Any] = {}
        exec(compile(code, "<template>", "exec"), scope)  # our own templates' code, run here on purpose
        total, parts = scope["compute_reward"](before, np.zeros(1), after)
        assert np.isfinite(total) and parts
    env.close()


SWIMMER_SPIN = "Make the swimmer spin in place around its vertical axis, as fast as it can.\nEither way is fine.\n"


def test_an_example_whose_height_gate_is_shut_at_this_robots_reset_is_not_chosen() -> None:
    """ant-spin's example pays the yaw rate only while the torso is 0.2 to 1.0 m high; Swimmer's torso shares the
    name and lies at z = 0, so there it would pay only its penalties. HalfCheetah (torso at 0.7 m) likewise loses
    walker2d-walk's example, whose healthy band starts at 0.8 m."""
    spin = load_task("ant-spin")
    swimmer = spin.model_copy(update={"name": "swimmer-spin", "env": "Swimmer-v5", "description": SWIMMER_SPIN})
    names = task_names(Designer(None, swimmer, describe(swimmer)).prompt())
    assert names["reset_z"]["torso"] == 0.0 and "torso" in names["bodies"]
    assert [ex.task for ex in ranked(names, swimmer.env, names["task_line"])] == []
    with_ant_height = names | {"reset_z": {**names["reset_z"], "torso": 0.75}}  # the same prompt, Ant's height
    assert [ex.task for ex in ranked(with_ant_height, swimmer.env, names["task_line"])] == ["ant-spin"]
    cheetah = load_task("halfcheetah-run")
    names = task_names(Designer(None, cheetah, describe(cheetah)).prompt())
    assert "walker2d-walk" not in [ex.task for ex in ranked(names, cheetah.env, names["task_line"])]


def test_the_name_template_pays_height_only_where_the_root_can_rise() -> None:
    """Swimmer's torso and InvertedPendulum's cart never leave z = 0: a height term is a constant there (the analyzer
    flagged it on every Swimmer template). A pole on a cart is paid its last link's up axis instead."""
    spin = load_task("ant-spin")
    swimmer = spin.model_copy(update={"name": "swimmer-spin", "env": "Swimmer-v5", "description": SWIMMER_SPIN})
    lines = example_lines(task_names(Designer(None, swimmer, describe(swimmer)).prompt()))
    assert [line.split('"')[1] for line in lines] == ["spin", "effort"]
    balance = load_task("inverted-double-pendulum-balance")
    pole = balance.model_copy(
        update={"name": "pole", "env": "InvertedPendulum-v5", "description": "Balance the pole upright.\n"}
    )
    lines = example_lines(task_names(Designer(None, pole, describe(pole)).prompt()))
    assert lines[0] == 'components["upright"] = float(next_state.body("pole").xmat[2, 2])'
    assert not any("height" in line for line in lines)
    ant = example_lines(task_names(Designer(None, spin, describe(spin)).prompt()))  # a free root still rises
    assert any(line.startswith('components["height"]') for line in ant)
