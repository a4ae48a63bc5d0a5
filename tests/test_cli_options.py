"""`run` and `batch` options are generated from RunConfig's fields: every field is an option of both verbs, the
old flag spellings still work, and `--help` names each field's true default."""

from __future__ import annotations

import os

import pytest
import typer

from rewardsmith.cli import app
from rewardsmith.config import RunConfig
from rewardsmith.sandbox.probe import DEFAULT_MINIMUM

BATCH_LEVEL = {"task": "tasks"}  # batch's LIST argument stands for the task; out and workers keep their names


class Stop(Exception):
    """Raised by the stand-in for the search, with what the command would have started."""


def params(verb: str) -> dict[str, object]:
    command = typer.main.get_command(app).commands[verb]  # type: ignore[attr-defined]
    return {p.name: p for p in command.params}


@pytest.mark.parametrize("verb", ["run", "batch"])
def test_every_run_config_field_is_an_option_of_the_verb(verb):
    names = params(verb)
    missing = [f for f in RunConfig.model_fields if (BATCH_LEVEL.get(f, f) if verb == "batch" else f) not in names]
    assert not missing, f"RunConfig fields missing from `rewardsmith {verb}`: {missing}"


def test_help_text_is_the_field_description():
    for name, param in params("run").items():
        if name in RunConfig.model_fields and name != "task":
            assert param.help.startswith(RunConfig.model_fields[name].description), name  # type: ignore[attr-defined]


def test_sandbox_minimum_help_names_the_true_default(cli):
    code, out, _ = cli("run", "--help")
    assert code == 0
    squashed = "".join(out.split())  # the help wraps anywhere, also at a hyphen
    assert "else" + ",".join(DEFAULT_MINIMUM) + "." in squashed, out


@pytest.fixture
def captured(monkeypatch):
    """Replace the search (run) and the batch start by a stand-in that records what they were given."""
    import rewardsmith.search.batch
    import rewardsmith.search.loop

    seen = {}

    def search(config, *args, **kwargs):
        seen["run"] = config
        raise Stop

    def start(tasks, config, out=None):
        seen["batch"] = config
        raise Stop

    monkeypatch.setattr(rewardsmith.search.loop, "run", search)
    monkeypatch.setattr(rewardsmith.search.batch, "start", start)
    return seen


OLD_SPELLINGS = ["-m", "scripted:/dev/null", "--api-base", "http://localhost:1", "--iterations", "2", "--samples", "3",
                 "--timesteps", "500", "--final-seeds", "0", "--repair-rounds", "0", "--seed", "4", "--device", "auto",
                 "--semantic", "--llm-summary", "--videos", "--no-screen", "--sandbox-minimum", "seccomp,ast-gate",
                 "--strategy", "eureka", "--rungs", "0.5,1", "--keep", "0.5", "--crossover", "--warm-start",
                 "--no-stop-flat", "--progress-bonus", "0.1", "--progress-bins", "5", "--shared-cache",
                 "--finalist-seeds", "3"]
EXPECTED = {"model": "scripted:/dev/null", "api_base": "http://localhost:1", "iterations": 2, "samples": 3,
            "timesteps": 500, "final_timesteps": 500, "final_seeds": 0, "repair_rounds": 0, "seed": 4, "device": "auto",
            "semantic": True, "llm_summary": True, "videos": True, "screen": False,
            "sandbox_minimum": ["seccomp", "ast-gate"], "strategy": "eureka", "rungs": [0.5, 1.0], "keep": 0.5,
            "crossover": True, "warm_start": True, "stop_flat": False, "progress_bonus": 0.1, "progress_bins": 5,
            "use_cache": True, "finalist_seeds": 3}


def test_run_takes_every_old_spelling(cli, captured, tmp_path):
    with pytest.raises(Stop):
        cli("run", "halfcheetah-run", *OLD_SPELLINGS, "--out", tmp_path / "o", "--workers", "2",
            "--iteration-retries", "0", "--temperature", "0.5", "--max-tokens", "100")
    config = captured["run"]
    assert {k: getattr(config, k) for k in EXPECTED} == EXPECTED
    assert (config.out, config.workers, config.iteration_retries, config.temperature, config.max_tokens) == (
        tmp_path / "o", 2, 0, 0.5, 100)


def test_run_defaults_are_the_config_defaults(cli, captured):
    with pytest.raises(Stop):
        cli("run", "halfcheetah-run", "-m", "scripted:/dev/null", "--no-cache", "--sandbox-minimum", "")
    config = captured["run"]
    expected = RunConfig(task="halfcheetah-run", model="scripted:/dev/null", use_cache=False)
    assert config == expected and config.workers == (os.cpu_count() or 1)


def test_batch_passes_every_run_option(cli, captured, tmp_path):
    feedback = tmp_path / "feedback.txt"
    feedback.write_text("# after iteration 1\nmore speed\n")
    with pytest.raises(Stop):
        cli("batch", "envs/*.toml", *OLD_SPELLINGS, "--feedback", feedback, "--workers", "2", "--out", tmp_path / "b")
    config = captured["batch"]
    assert config.workers == 2
    assert config.run_options == {**EXPECTED, "feedback": str(feedback.resolve())}
    run = config.run_config(tmp_path / "t.toml", tmp_path / "o", 2)  # what each task's run gets
    assert {k: getattr(run, k) for k in EXPECTED} == EXPECTED


def test_batch_passes_only_what_was_given(cli, captured):
    with pytest.raises(Stop):
        cli("batch", "envs/*.toml", "-m", "scripted:/dev/null", "--timesteps", "64", "--final-timesteps", "128")
    assert captured["batch"].run_options == {"model": "scripted:/dev/null", "timesteps": 64, "final_timesteps": 128}


@pytest.mark.parametrize("verb", ["run", "batch"])
@pytest.mark.parametrize("args,needles", [
    (["--rungs", "0.5,0.25"], ["--rungs", "increase strictly"]),
    (["--rungs", "half"], ["--rungs", "half"]),
    (["--keep", "0"], ["--keep", "greater than 0"]),
    (["--strategy", "greedy"], ["--strategy", "greedy"]),
    (["--iterations", "0"], ["--iterations"]),
])
def test_bad_values_name_their_option(cli, captured, verb, args, needles):
    code, _, err = cli(verb, "halfcheetah-run" if verb == "run" else "envs/*.toml", "-m", "scripted:/dev/null", *args)
    assert code == 2 and "Traceback" not in err and not captured
    for needle in needles:
        assert needle in err, err
