"""A hand's joint table is grouped by finger to save tokens; no fact may be lost. Each joint's qpos index, range,
control range and world axis at reset is read back from the grouped table (expanded as its heading says) and
checked against the env itself, and every request a design round sends for a shipped task fits in 3,000 tokens."""

from __future__ import annotations

import re

import numpy as np
import pytest

from rewardsmith.reward.state import schema_for
from rewardsmith.stages.env_description import describe
from rewardsmith.task import list_tasks, load_task, make_env

HANDS = ["adroit-door", "adroit-hammer", "shadowhand-block-rotate-z"]
BUDGET = 3000


def _section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"## {title}"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("#")), len(lines))
    return lines[start + 1 : end]


def _tails(braced: str) -> tuple[str, list[str]]:
    stem, _, rest = braced.partition("{")
    return stem, [t.strip() for t in rest.rstrip("}").split(",")]


def expand(text: str) -> tuple[dict[str, tuple[int, str]], dict[str, str]]:
    """{joint: (qpos index, facts)} read back from the grouped table, and the axis key {letter: text}."""
    joints: dict[str, tuple[int, str]] = {}
    key: dict[str, str] = {}
    for line in _section(text, "Joints"):
        if m := re.match(r"- ([A-Z]): (.*)$", line):
            key[m.group(1)] = m.group(2)
            continue
        if m := re.match(r"- (\S+\{[^}]*\}) \[(\d+):(\d+)\]( [^:]+)?: (.*)$", line):
            stem, tails = _tails(m.group(1))
            shared = (m.group(4) or "").strip()
            body, _, likewise = m.group(5).partition("; likewise ")
            body, _, then = body.partition("; then as ")
            facts: list[str] = []
            for entry in re.split(r"; (?=[\w, ]+: )", body):  # a member's own `; +z to ..` stays with it
                ends, _, fact = entry.partition(": ")
                facts += [f"{shared} {fact}".strip()] * len(ends.split(", "))
            if then:
                ref_stem, ref_tails = _tails(then)
                facts += [joints[ref_stem + t][1] for t in ref_tails]
            start = int(m.group(2))
            for k, tail in enumerate(tails):
                joints[stem + tail] = (start + k, facts[k])
            for name, at in re.findall(r"(\S+\{[^}]*\}) \[(\d+)", likewise):
                other_stem, other_tails = _tails(name)
                for k, tail in enumerate(other_tails):
                    joints[other_stem + tail] = (int(at) + k, facts[k])
        elif m := re.match(r"- (\S+) \[(\d+)(?::\d+)?\](?:, qvel\[[^\]]*\])? (.*)$", line):
            joints[m.group(1)] = (int(m.group(2)), m.group(3))
    return joints, key


def _range(text: str) -> tuple[float, float]:
    if text.startswith("±"):
        return -float(text[1:]), float(text[1:])
    lo, hi = text.strip("[]").split(", ")
    return float(lo), float(hi)


def _direction(text: str) -> np.ndarray:
    if re.fullmatch(r"[+-][xyz]", text):
        v = np.zeros(3)
        v["xyz".index(text[1])] = 1.0 if text[0] == "+" else -1.0
        return v
    return np.array([float(c) for c in text.strip("()").split(", ")])


@pytest.mark.parametrize("task", HANDS)
def test_the_grouped_joint_table_keeps_every_joints_facts(task: str) -> None:
    text = describe(load_task(task))
    env = make_env(load_task(task))
    env.reset(seed=0)
    base = env.unwrapped
    model, data = base.model, base.data
    joints, key = expand(text)
    schema = schema_for(env)
    assert set(joints) == set(schema.joints), set(schema.joints) ^ set(joints)
    ctrl = {int(model.actuator_trnid[a, 0]): model.actuator_ctrlrange[a] for a in range(model.nu)}
    for j, name in enumerate(schema.joints):
        index, facts = joints[name]
        assert index == model.jnt_qposadr[j], name
        kind = int(model.jnt_type[j])
        if kind == 0:  # free: its orientation's layout
            assert "free" in facts and "quaternion" in facts, name
            continue
        assert ("slide" in facts) == (kind == 2), name
        if m := re.match(r"(?:slide )?(±[\d.]+|\[[^\]]+\])(~| ctrl (±[\d.]+|\[[^\]]+\]))?", facts):
            assert model.jnt_limited[j] and np.allclose(_range(m.group(1)), model.jnt_range[j], rtol=1e-3, atol=1e-3)
            shown_ctrl = (
                _range(m.group(3))
                if m.group(3)
                else tuple(float(f"{x:.2g}") for x in model.jnt_range[j])
                if m.group(2)
                else _range(m.group(1))
            )
            if j in ctrl:
                assert np.allclose(shown_ctrl, ctrl[j], rtol=1e-3, atol=1e-3), (name, shown_ctrl, ctrl[j])
        else:
            assert "unlimited" in facts and not model.jnt_limited[j], name
        axis = facts.rsplit(" ", 1)[-1]
        axis = key[axis] if re.fullmatch(r"[A-Z]", axis) else facts[facts.index("(") :]
        shown = _direction(re.search(r"-> ([+-][xyz]|\([^)]*\))", axis).group(1))
        world = data.xmat[model.jnt_bodyid[j]].reshape(3, 3) @ model.jnt_axis[j]  # after reset
        assert np.allclose(shown / np.linalg.norm(shown), world, atol=0.02), (name, axis, world)
        if kind == 3:  # a hinge: the named turn is what a small positive rotation does
            a, b = re.search(r"(\+[xyz]) to ([+-][xyz]|\([^)]*\))", axis).groups()
            turned = np.cross(world, _direction(a))
            assert np.allclose(
                turned / np.linalg.norm(turned), _direction(b) / np.linalg.norm(_direction(b)), atol=0.02
            )


def test_the_actuators_follow_the_table_order() -> None:
    """Adroit door: action[i] drives the joint at qpos[i] for the 28 hand joints; Shadow Hand skips the J0s."""
    door, shadow = describe(load_task("adroit-door")), describe(load_task("shadowhand-block-rotate-z"))
    assert (
        "- action[0:28] -> actuator A_ARTz of ARTz, and so on for the joints from ARTz to THJ0 in table order" in door
    )
    env = make_env(load_task("shadowhand-block-rotate-z"))
    env.reset(seed=0)
    model, names = env.unwrapped.model, list(schema_for(env).joints)
    driven = [names[model.actuator_trnid[a, 0]] for a in range(model.nu)]
    skipped = [n for n in names[: names.index(driven[-1])] if n not in driven]
    assert skipped == [f"robot0:{f}J0" for f in ("FF", "MF", "RF", "LF")]
    assert "skipping robot0:FFJ0, robot0:MFJ0, robot0:RFJ0, robot0:LFJ0" in shadow


def _by_speed(names: list[str]) -> list:
    fast = {*HANDS, "ant-run"}  # the largest requests; the rest are slow only because building each env takes time
    return [n if n in fast else pytest.param(n, marks=pytest.mark.slow) for n in sorted(names)]


@pytest.mark.parametrize("task", _by_speed([s.name for s in list_tasks()]))
def test_every_request_of_a_design_round_fits_the_budget(task: str) -> None:
    """Iteration 1 of every shipped task, for every sample's design emphasis, counted as `rewardsmith prompt` does."""
    from rewardsmith.cli.prompt import count_tokens, designer_messages
    from rewardsmith.stages.design_emphasis import EMPHASES, emphasis_for, with_emphasis

    messages, _ = designer_messages(task, None)
    for sample in range(1, len(EMPHASES) + 2):
        tokens, _ = count_tokens("gpt-4o", with_emphasis(messages, emphasis_for(sample)))
        assert sum(tokens) <= BUDGET, (task, sample, sum(tokens))
