"""The critic: static rejections, the sandboxed smoke run on a real env, the LLM review, the `check` verb."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import write_idp_tiny_task
from typer.testing import CliRunner

from rewardsmith.cli import app
from rewardsmith.llm import get_model
from rewardsmith.run_folder.names import CRITIC_FILE
from rewardsmith.search.evidence import structural_finding, tie_break_warning
from rewardsmith.stages.critic import critic_messages, critique, parse_verdict
from rewardsmith.task import read_task
from rewardsmith.workers.executor import LocalExecutor

EXECUTOR = LocalExecutor(workers=2)
"""The worker pool of this module's stage calls (a stage takes its executor explicitly)."""

DATA = Path(__file__).parent / "data"
@pytest.fixture(scope="module")
def task_file(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("task")
    write_idp_tiny_task(folder)
    return folder / "task.toml"


@pytest.fixture(scope="module")
def spec(task_file):
    return read_task(task_file)


def reward(tmp_path: Path, body: str, name: str = "reward.py") -> Path:
    path = tmp_path / name
    path.write_text("import numpy as np\nimport math\n\n\ndef compute_reward(state, action, next_state):\n" + body)
    return path


GOOD = "    upright = float(next_state.site('tip').pos[2]) - 0.1 * abs(float(next_state.body('pole2').linvel[0]))\n" \
       "    effort = -0.3 * float(np.sum(np.square(action))) + 0.0 * float(state.body('pole').xmat[2, 2])\n" \
       "    return upright + effort, {'upright': upright, 'effort': effort}\n"


def codes(report, severity: str | None = None) -> list[str]:
    return [f.code for f in report.findings if severity is None or f.severity == severity]


def test_every_lazily_read_state_field_is_captured_before_the_reward_loads():
    import re

    from rewardsmith.reward import state
    from rewardsmith.workers import critic

    read = set(re.findall(r'_array\("(\w+)"\)', Path(state.__file__).read_text()))
    assert read and read <= set(critic.CAPTURED_FIELDS)


@pytest.mark.parametrize("source, code, line", [
    ("def compute_reward(state, action, next_state)\n    return 0.0, {}\n", "syntax-error", 1),
    ("def compute_reward(state, action):\n    return 0.0, {}\n", "signature", 1),
    ("import os\n\ndef compute_reward(state, action, next_state):\n    return 0.0, {}\n", "forbidden-import", 1),
])
def test_static_rejections_never_start_a_worker(spec, tmp_path, source, code, line):
    path = tmp_path / "reward.py"
    path.write_text(source)
    report = critique(spec, path, tmp_path / "out", model=None, executor=EXECUTOR, env_description=None)
    assert not report.accepted
    first = report.findings[0]
    assert (first.stage, first.code, first.line, first.severity) == ("static", code, line, "error")
    assert report.stats["stages"] == ["static"] and not (tmp_path / "out" / "critic").exists()
    saved = json.loads((tmp_path / "out" / CRITIC_FILE).read_text())
    assert saved["accepted"] is False and saved["findings"][0]["code"] == code


def test_benign_reward_is_accepted_with_component_stats(spec, tmp_path):
    report = critique(spec, reward(tmp_path, GOOD), tmp_path / "out", model=None, executor=EXECUTOR, env_description=None)
    assert report.accepted, report.repair_text()
    assert report.findings == []
    dynamic = report.stats["dynamic"]
    assert dynamic["evaluated"] == dynamic["transitions"] >= 200
    assert set(dynamic["components"]) == {"upright", "effort"}
    effort = dynamic["components"]["effort"]
    assert effort["max"] == 0.0 and effort["min"] < 0.0  # zero-action and random-action rollouts both present
    assert 0 <= dynamic["time_ms"]["median"] <= dynamic["time_ms"]["max"]
    smoke = json.loads((tmp_path / "out" / "critic" / "smoke.json").read_text())
    assert smoke["sandbox"]["seccomp"] and smoke["findings"] == []
    assert json.loads((tmp_path / "out" / CRITIC_FILE).read_text())["accepted"] is True


def test_a_discrete_action_env_is_smoke_run_with_its_choices(tmp_path):
    """Acrobot's actions are choices 0, 1, 2: the smoke run steps the env with them (a float array once failed
    there) and the reward gets each as a 0-d float, as in training; the neutral rollouts use the middle choice."""
    spec = read_task(Path(__file__).parents[1] / "envs" / "acrobot-swing-up.toml")
    body = "    torque = float(action) - 1.0\n    assert np.ndim(action) == 0\n" \
           "    return -abs(torque), {'effort': -abs(torque)}\n"
    report = critique(spec, reward(tmp_path, body), tmp_path / "out", model=None, executor=EXECUTOR,
                      env_description=None)
    assert report.accepted, report.repair_text()
    effort = report.stats["dynamic"]["components"]["effort"]
    assert effort["max"] == 0.0 and effort["min"] == -1.0  # neutral (no torque) and random choices both present


def test_nan_total_is_rejected_with_the_transition_index(spec, tmp_path):
    body = "    x = float(next_state.obs[0])\n    total = float('nan') if x > 0 else x\n    return total, {'x': x}\n"
    report = critique(spec, reward(tmp_path, body), tmp_path / "out", model=None, executor=EXECUTOR, env_description=None)
    assert not report.accepted
    [finding] = report.errors
    assert finding.code == "contract" and "the total must be finite, got nan" in finding.message
    assert finding.message.startswith("transition ") and "transitions failed this way" in finding.message
    assert "Fix every error" in report.repair_text() and finding.message in report.repair_text()


def test_exception_is_reported_with_type_message_and_line(spec, tmp_path):
    body = "    speed = float(next_state.qvel[0])\n    ratio = 1.0 / 0.0 if speed > 0 else speed\n" \
           "    return ratio, {'ratio': ratio}\n"
    report = critique(spec, reward(tmp_path, body), tmp_path / "out", model=None, executor=EXECUTOR, env_description=None)
    assert not report.accepted
    [finding] = report.errors
    assert (finding.code, finding.line) == ("exception", 7)
    assert finding.message.startswith("ZeroDivisionError: float division by zero (raised on transition ")


def test_constant_total_and_dominant_component_are_warnings(spec, tmp_path):
    constant = reward(tmp_path, "    return 1.0, {'alive': 1.0}\n", "constant.py")
    report = critique(spec, constant, tmp_path / "a", model=None, executor=EXECUTOR, env_description=None)
    assert report.accepted and codes(report, "warning") == ["constant-total"]
    dominant = reward(tmp_path, "    big = 1000.0 * (1.0 + abs(float(next_state.obs[1])))\n"
                                "    small = 0.01 * float(next_state.obs[1])\n"
                                "    return big + small, {'big': big, 'small': small}\n", "dominant.py")
    report = critique(spec, dominant, tmp_path / "b", model=None, executor=EXECUTOR, env_description=None)
    assert report.accepted and codes(report, "warning") == ["dominant-component"]
    assert "'big'" in report.warnings[0].message and "warnings worth fixing" in report.repair_text()
    assert "rescale the components" in report.warnings[0].message
    # a dominant CONSTANT term is a statement about episode length, and the warning says so instead of "rescale"
    timed = reward(tmp_path, "    height = 0.01 * float(next_state.obs[1])\n"
                             "    return -1.0 + height, {'time': -1.0, 'height': height}\n", "timed.py")
    report = critique(spec, timed, tmp_path / "c", model=None, executor=EXECUTOR, env_description=None)
    message = report.warnings[0].message
    assert "'time'" in message and "constant -1 a step" in message and "ending episodes sooner" in message
    assert "rescale the components" not in message


def test_a_reward_that_reads_no_varying_state_is_a_warning(spec, tmp_path):
    # a height window this env never enters (as ant-spin's example on a hopper): only the effort term varies
    body = ("    tip = float(next_state.site('tip').pos[2])\n"
            "    up = tip if WINDOW else 0.0\n"
            "    effort = -10.0 * float(np.sum(np.square(action)))\n"
            "    return up + effort, {'up': up, 'effort': effort}\n")
    gated = reward(tmp_path, body.replace("WINDOW", "5.0 < tip < 6.0"), "gated.py")
    report = critique(spec, gated, tmp_path / "a", model=None, executor=EXECUTOR, env_description=None)
    assert report.accepted and codes(report, "warning") == ["state-blind"]
    message = report.warnings[0].message
    assert "depends on the action alone" in message and "('up' never change)" in message
    kind, why = structural_finding(report.to_dict())
    assert kind == "state-blind" and tie_break_warning(report.to_dict()) == why  # it breaks ties (bench-measured)
    # the window where the tip does ride: the total follows the state, no warning
    opened = reward(tmp_path, body.replace("WINDOW", "tip > 0.0"), "opened.py")
    report = critique(spec, opened, tmp_path / "b", model=None, executor=EXECUTOR, env_description=None)
    assert report.accepted and report.findings == []


def test_slow_reward_is_rejected(spec, tmp_path):
    body = "    total = 0.0\n    for i in range(20000):\n        total += math.sin(i)\n    return total, {'t': total}\n"
    report = critique(spec, reward(tmp_path, body), tmp_path / "out", options={"per_call_budget_ms": 0.05}, model=None, executor=EXECUTOR, env_description=None)
    assert not report.accepted and codes(report, "error") == ["too-slow"]
    assert "budget is 0.05 ms" in report.errors[0].message


def test_a_call_held_up_once_is_timed_again_and_a_slow_branch_stays_slow():
    """The slowest calls over the per-call limit are timed again and keep their fastest time: a call the scheduler
    held up on a busy machine passes, a branch that is expensive on its state does not."""
    from rewardsmith.workers.critic import retime_slow_calls

    transitions = [(i, None, None, False, False) for i in range(3)]
    times = [0.001, 0.104, 0.002]
    retime_slow_calls(times, transitions, lambda *t: (0.0, {}), limit_s=0.05)
    assert times[1] < 0.05 and times[0] == 0.001  # only the slow call is timed again

    def slow_on_one_state(state, *rest):
        if state == 1:
            time.sleep(0.06)
        return 0.0, {}

    times = [0.001, 0.104, 0.002]
    retime_slow_calls(times, transitions, slow_on_one_state, limit_s=0.05)
    assert 0.06 <= times[1] <= 0.104


def test_hanging_reward_is_killed_by_the_timeout(spec, tmp_path):
    started = time.monotonic()
    report = critique(spec, reward(tmp_path, "    while True:\n        pass\n"), tmp_path / "out", timeout_s=8, model=None, executor=EXECUTOR, env_description=None)
    assert time.monotonic() - started < 30
    assert not report.accepted
    [finding] = report.errors
    assert finding.code == "worker" and "timed out after 8 s" in finding.message


@pytest.mark.parametrize("text, verdict", [
    ("VERDICT: OK\nLooks right.", "OK"),
    ("**Verdict:** revise\n- line 6 rewards falling", "REVISE"),
    ("I will answer VERDICT: OK or VERDICT: REVISE.\nVERDICT: REVISE\n- wrong sign", "REVISE"),
    ("The code seems fine to me.", None),
])
def test_parse_verdict(text, verdict):
    assert parse_verdict(text)[0] == verdict


def script(tmp_path: Path, *contents: str) -> str:
    path = tmp_path / "script.jsonl"
    path.write_text("".join(json.dumps({"role": "critic", "content": c}) + "\n" for c in contents))
    return "scripted:" + str(path)


def test_semantic_revise_rejects_with_only_the_named_problems(spec, tmp_path):
    answer = ("VERDICT: REVISE\n- The height term is fine and well scaled.\n"
              "- PROBLEM: line 6: the sign rewards falling over; negate it\n  and cap it at 1.\n"
              "- Effort penalty looks good.")
    model = get_model(script(tmp_path, answer))
    report = critique(spec, reward(tmp_path, GOOD), tmp_path / "out", model=model, semantic=True, executor=EXECUTOR, env_description="ENV")
    assert not report.accepted and report.stats["stages"] == ["static", "dynamic", "semantic"]
    [finding] = report.findings
    assert (finding.stage, finding.code) == ("semantic", "semantic-revise")
    assert finding.message == "line 6: the sign rewards falling over; negate it and cap it at 1."
    assert "fine" not in report.repair_text() and "looks good" not in report.repair_text()
    assert report.tokens > 0 and report.stats["semantic"]["verdict"] == "REVISE"
    sent = critic_messages(spec, GOOD, "ENV", report.stats["dynamic"])[0]["content"]
    assert "## Its values on" in sent and "total: " in sent  # the smoke statistics reach the reviewer


def test_semantic_revise_without_a_named_problem_is_a_warning(spec, tmp_path):
    model = get_model(script(tmp_path, "VERDICT: REVISE\n- Everything looks reasonable, maybe tune scales."))
    report = critique(spec, reward(tmp_path, GOOD), tmp_path / "out", model=model, semantic=True, executor=EXECUTOR, env_description="ENV")
    assert report.accepted and codes(report, "warning") == ["semantic-unnamed"]


def test_semantic_unparseable_is_ok_with_a_warning_and_scripted_is_off_by_default(spec, tmp_path):
    model = get_model(script(tmp_path, "Seems fine."))
    path = reward(tmp_path, GOOD)
    assert critique(spec, path, tmp_path / "a", model=model, executor=EXECUTOR, env_description="ENV").stats["stages"] == ["static", "dynamic"]
    report = critique(spec, path, tmp_path / "b", model=model, semantic=True, executor=EXECUTOR, env_description="ENV")
    assert report.accepted and codes(report, "warning") == ["semantic-unparsed"]


def test_check_cli_exit_codes_and_json(task_file, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    good = reward(tmp_path, GOOD, "good.py")
    result = runner.invoke(app, ["check", str(task_file), str(good), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"accepted": True, "findings": []}
    assert not (tmp_path / "runs").exists()  # without --out, check works in a temporary folder
    bad = reward(tmp_path, "    return float('inf'), {}\n", "bad.py")
    result = runner.invoke(app, ["check", str(task_file), str(bad), "--json"])
    assert result.exit_code == 1
    payload = json.loads(result.stdout)
    assert payload["accepted"] is False and payload["findings"][0]["code"] == "contract"
    assert set(payload["findings"][0]) == {"stage", "code", "message", "severity", "line"}
    result = runner.invoke(app, ["check", str(task_file), str(bad)])
    assert result.exit_code == 1 and "rejected" in result.stdout and "contract" in result.stdout


@pytest.mark.parametrize("args", [["no-such-task", "x.py"], ["{task}", "missing.py"]])
def test_check_cli_usage_errors_exit_2(task_file, tmp_path, args):
    argv = [a.format(task=task_file) for a in args]
    done = subprocess.run([sys.executable, "-m", "rewardsmith", "check", *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "error:" in done.stderr
