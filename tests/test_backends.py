"""The training-backend seam (issue 24): the registry, the spec's `backend`, and vectorized in-process training."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from rewardsmith.errors import TaskSpecError
from rewardsmith.files import read_jsonl
from rewardsmith.task import ENVS_DIR, TrainDefaults, load_task
from rewardsmith.workers.backends import BACKENDS, DEFAULT_BACKEND, TrainingBackend, load_backend

EXAMPLES = ENVS_DIR / "examples"


def test_every_registered_backend_implements_the_seam():
    assert DEFAULT_BACKEND in BACKENDS
    for name in BACKENDS:
        backend = load_backend(name)
        assert isinstance(backend, TrainingBackend) and backend.name == name


def test_an_unknown_backend_is_a_clear_task_error():
    with pytest.raises(TaskSpecError, match="unknown training backend 'nope'; known: .*sb3"):
        load_backend("nope")


def test_the_spec_names_its_backend():
    assert TrainDefaults().backend == "sb3"
    with pytest.raises(ValidationError):
        TrainDefaults(backend="../evil")


@pytest.mark.parametrize("task", ["hopper-hop", "halfcheetah-run"])
def test_retuned_tasks_keep_a_rollout_that_fits_their_minibatch(task):
    train = load_task(task).train
    rollout = train.n_envs * train.hyperparams["n_steps"]
    assert train.n_envs > 1 and rollout % train.hyperparams["batch_size"] == 0


def test_vectorized_training_logs_components_per_env_and_reports_its_setup(cli, tiny_spec, tmp_path):
    spec = tiny_spec("inverted-double-pendulum-balance", n_envs=4, timesteps=1024)
    out = tmp_path / "out"
    code, _, stderr = cli("train", spec, EXAMPLES / "inverted_double_pendulum_balance.py", "--out", out)
    assert code == 0, stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["backend"] == "sb3" and summary["n_envs"] == 4 and summary["timesteps"] >= 1024
    records, problems = read_jsonl(out / "metrics.jsonl")
    train = [r for r in records if r["kind"] == "train"]
    assert not problems and train and all(r["components"] for r in train)
    assert sum(r["episodes"] for r in train) >= 4  # episodes of several envs, each summed by its own wrapper
