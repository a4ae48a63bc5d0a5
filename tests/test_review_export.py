"""`rewardsmith export`: a standalone reward file with provenance that trains through `rewardsmith.RewardWrapper`."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest
from review_fixture import build_review_run

import rewardsmith
from rewardsmith.errors import RunFolderError
from rewardsmith.views.export import export_reward


@pytest.fixture(scope="session")
def review_run(tmp_path_factory) -> Path:
    return build_review_run(tmp_path_factory.getbasetemp() / "review_run")


@pytest.mark.slow
def test_exported_reward_trains_with_sb3(review_run, tmp_path):
    from stable_baselines3 import PPO

    path = export_reward(review_run, tmp_path / "out", candidate="2.1")
    text = path.read_text()
    assert "task: halfcheetah-run (HalfCheetah-v5)" in text and "candidate: 2.1 (iteration 2, parent 1.1" in text
    assert "search fitness of " in text and "result: " in text and "model: scripted:review.jsonl" in text and "# rewardsmith candidate" not in text
    readme = (path.parent / "README.md").read_text()
    assert 'rewardsmith.RewardWrapper(gym.make("HalfCheetah-v5"), "reward.py")' in readme
    env = rewardsmith.RewardWrapper(gym.make("HalfCheetah-v5"), path)
    model = PPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [16]})
    model.learn(total_timesteps=64)
    _, reward, *_, info = env.step(env.action_space.sample())
    assert isinstance(reward, float)
    components = info["reward_components"]  # each step's components, for the user's own logging
    assert set(components) == {"forward_velocity", "upright", "effort_penalty"}
    assert sum(components.values()) == pytest.approx(reward)


def test_export_refuses_a_rejected_candidate(review_run, tmp_path):
    with pytest.raises(RunFolderError, match="1.2 is rejected"):
        export_reward(review_run, tmp_path, candidate="1.2")


def test_cli_export_defaults_to_the_best(review_run, tmp_path, cli):
    code, out, _ = cli("export", review_run, "--to", tmp_path / "best")
    assert code == 0 and (tmp_path / "best" / "reward.py").is_file()
