"""Bad input gets a one-line error naming the file (and line), exit code 2, and no traceback."""

from __future__ import annotations

import json

import pytest

GOOD_REWARD = "def compute_reward(state, action, next_state):\n    return 1.0, {'a': 1.0}\n"


def spec_text(**fields) -> str:
    base = {"name": '"bad-task"', "env": '"InvertedDoublePendulum-v5"', "description": '"Balance the pendulum upright."'}
    base.update(fields)
    lines = [f"{k} = {v}" for k, v in base.items() if v is not None]
    return "\n".join(lines) + '\n[fitness]\nscorer = "scorers:Balance"\nkwargs = { site = "tip" }\n'


def check_error(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) <= 3  # one logical line, possibly wrapped
    for needle in needles:
        assert needle in err.replace("\n", ""), err


@pytest.fixture
def envs_copy(tiny_spec, tmp_path):
    tiny_spec("inverted-double-pendulum-balance")  # copies the scorer modules next to the specs
    return tmp_path


def test_malformed_toml_names_file_and_line(cli, envs_copy):
    path = envs_copy / "broken.toml"
    path.write_text('name = "x"\nenv = "Hopper-v5\n')
    code, _, err = cli("describe", path)
    check_error(code, err, "broken.toml", "malformed TOML", "line 2")


def test_unknown_env_id(cli, envs_copy):
    path = envs_copy / "unknown.toml"
    path.write_text(spec_text(env='"NoSuchEnv-v9"'))
    code, _, err = cli("train", path, envs_copy / "nothing.py")
    check_error(code, err, "unknown.toml", "NoSuchEnv-v9")


def test_missing_description(cli, envs_copy):
    path = envs_copy / "nodesc.toml"
    path.write_text(spec_text(description=None))
    code, _, err = cli("describe", path)
    check_error(code, err, "nodesc.toml", "description", "missing")


def test_missing_fitness(cli, envs_copy):
    path = envs_copy / "nofit.toml"
    path.write_text(spec_text().split("[fitness]")[0])
    code, _, err = cli("describe", path)
    check_error(code, err, "nofit.toml", "fitness", "missing")


def test_unknown_task_name(cli):
    code, _, err = cli("describe", "no-such-task")
    check_error(code, err, "unknown task 'no-such-task'")


@pytest.mark.parametrize("source,needles", [
    ("def compute_reward(state, action, next_state)\n    return 1.0, {}\n", ["reward.py:1", "syntax"]),
    ("def reward(state, action, next_state):\n    return 1.0, {}\n", ["compute_reward"]),
    ("def compute_reward(state, action):\n    return 1.0, {}\n", ["reward.py:1", "3"]),
])
def test_static_reward_file_errors(cli, tiny_spec, tmp_path, source, needles):
    spec = tiny_spec("inverted-double-pendulum-balance")
    reward = tmp_path / "reward.py"
    reward.write_text(source)
    code, _, err = cli("train", spec, reward, "--out", tmp_path / "out")
    check_error(code, err, *needles)


@pytest.mark.parametrize("body,needles", [
    ("return float('nan'), {}", ["finite"]),
    pytest.param("return [1.0, 2.0], {}", ["total", "finite float"], marks=pytest.mark.slow),
    pytest.param("return np.ones(3), {}", ["scalar", "(3,)"], marks=pytest.mark.slow),
    pytest.param("return 1.0, [('a', 1.0)]", ["components", "dict"], marks=pytest.mark.slow),
])
def test_runtime_contract_errors_from_the_worker(cli, tiny_spec, tmp_path, body, needles):
    spec = tiny_spec("inverted-double-pendulum-balance")
    reward = tmp_path / "reward.py"
    reward.write_text(f"import numpy as np\n\ndef compute_reward(state, action, next_state):\n    {body}\n")
    code, _, err = cli("train", spec, reward, "--out", tmp_path / "out")
    check_error(code, err, "reward.py", *needles)


def test_missing_reward_file(cli, tiny_spec, tmp_path):
    code, _, err = cli("train", tiny_spec("inverted-double-pendulum-balance"), tmp_path / "nope.py")
    check_error(code, err, "nope.py", "no such reward file")


@pytest.mark.parametrize("verb", [["review"], ["report"], ["logs"], ["resume"], ["evaluate"], ["export", "--to", "x"]])
def test_missing_run_folder_has_one_wording(cli, tmp_path, verb):
    code, _, err = cli(verb[0], tmp_path / "no-such-run", *verb[1:])
    check_error(code, err, "no-such-run: no such run folder (expected runs/<task>/<stamp>/")


@pytest.mark.parametrize("source,needles", [
    (None, ["is a folder, not a reward file"]),
    ("def compute_reward(state, action, next_state)\n    return 1.0, {}\n", ["reward.py:1", "syntax-error"]),
    ("def reward(state, action, next_state):\n    return 1.0, {}\n", ["signature", "compute_reward"]),
])
def test_check_unusable_input_is_one_line_and_exit_2(cli, tiny_spec, tmp_path, source, needles):
    spec = tiny_spec("inverted-double-pendulum-balance")
    reward = tmp_path / "reward.py"
    if source is None:
        reward.mkdir()
    else:
        reward.write_text(source)
    code, out, err = cli("check", spec, reward)
    check_error(code, err, *needles)
    assert "findings" not in out  # no table: one line on stderr
    code, out, _ = cli("check", spec, reward, "--json")
    assert code == 2 and json.loads(out)["accepted"] is False and needles[0] in json.loads(out)["error"]
    assert not (tmp_path / "runs").exists()
