"""The training worker's torch settings (`lean_torch`, `lean_policy_kwargs`, SAC as `LeanSAC`) change no result: with
Adam in its `foreach` form the same seed trains the same weights, bit for bit, as SB3 as it comes; the `fused` form
the worker takes makes the same update up to float rounding."""

from __future__ import annotations

import pytest
import torch

from rewardsmith.task import load_task, make_env


@pytest.fixture
def validation_restored():
    yield
    torch.distributions.Distribution.set_default_validate_args(__debug__)  # torch's default


def trained_weights(task: str, lean: bool, rollouts: int = 2) -> dict[str, torch.Tensor]:
    """The policy's tensors after `rollouts` PPO rollouts and updates at the spec's settings, seed 3: through the
    backend's `build_model` after `lean_torch()` (Adam in its foreach form), or SB3's PPO with torch's defaults."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from rewardsmith.workers.backends.sb3 import build_model
    from rewardsmith.workers.lean_torch import lean_torch

    spec = load_task(task)
    env = DummyVecEnv([lambda: make_env(spec)] * spec.train.n_envs)
    if lean:
        lean_torch()
        model = build_model(spec, env, 3, adam="foreach")
    else:
        torch.set_num_threads(1)
        torch.distributions.Distribution.set_default_validate_args(True)
        kwargs = spec.train.sb3_policy_kwargs() or None
        model = PPO("MlpPolicy", env, seed=3, verbose=0, policy_kwargs=kwargs, **spec.train.hyperparams)
    model.learn(rollouts * spec.train.n_envs * spec.train.hyperparams["n_steps"])
    return {k: v.clone() for k, v in model.policy.state_dict().items()}


@pytest.mark.slow
@pytest.mark.parametrize("task", ["hopper-hop", "halfcheetah-run"])  # 8 envs and 64x64 nets; 1 env, 256x256, 20 epochs
def test_lean_torch_trains_the_same_weights_bit_for_bit(task, validation_restored):
    plain, lean = trained_weights(task, lean=False), trained_weights(task, lean=True)
    assert plain.keys() == lean.keys()
    for name, tensor in plain.items():
        assert torch.equal(tensor, lean[name]), name


def test_lean_settings_take_sb3s_adam_in_its_fused_form_and_skip_distribution_checks(validation_restored):
    from rewardsmith.workers.backends.sb3 import build_model, optimizer_form
    from rewardsmith.workers.lean_torch import lean_torch

    lean_torch()
    assert not torch.distributions.Distribution._validate_args
    spec = load_task("hopper-hop")
    model = build_model(spec, make_env(spec), 0)
    group = model.policy.optimizer.param_groups[0]
    assert isinstance(model.policy.optimizer, torch.optim.Adam) and group["fused"] and group["eps"] == 1e-5
    assert optimizer_form(model.policy) == "Adam, fused"  # what the training's summary records
    assert optimizer_form(build_model(spec, make_env(spec), 0, adam="foreach").policy) == "Adam, foreach"
    with pytest.raises(ValueError, match="adam"):
        build_model(spec, make_env(spec), 0, adam="sgd")


@pytest.mark.parametrize("task", ["hopper-hop", "adroit-door"])  # PPO (eps 1e-5), SAC (the critic's optimizer)
def test_fused_adam_makes_the_foreach_forms_update_up_to_float_rounding(task, validation_restored):
    """Three updates of the same weights on the same gradients: fused and foreach Adam end within float rounding
    of each other. The gradients are about 1e-5, PPO's eps, so a wrong eps is seen, as a wrong beta or learning
    rate would be."""
    from rewardsmith.workers.backends.sb3 import build_model
    from rewardsmith.workers.lean_torch import lean_torch

    lean_torch()
    spec = load_task(task)
    policies, moved = [], []
    for adam in ("foreach", "fused"):
        small_buffer = {**spec.train.hyperparams, "buffer_size": 10} if spec.train.algo == "SAC" else None
        model = build_model(spec, make_env(spec), 0, adam=adam, hyperparams=small_buffer)
        net = model.policy.critic if spec.train.algo == "SAC" else model.policy
        start = [p.detach().clone() for p in net.parameters()]
        generator = torch.Generator().manual_seed(1)
        for _ in range(3):
            loss = sum((p * torch.randn(p.shape, generator=generator)).sum() for p in net.parameters()) * 1e-5
            net.optimizer.zero_grad()
            loss.backward()
            net.optimizer.step()
        assert net.optimizer.param_groups[0][adam]
        policies.append([p.detach().clone() for p in net.parameters()])
        moved.append(max((p - q).abs().max().item() for p, q in zip(policies[-1], start)))
    difference = max((a - b).abs().max().item() for a, b in zip(*policies))
    assert moved[0] > 1e-4 and moved[1] > 1e-4  # each form moved the weights by about 3 learning rates
    assert difference < 1e-6 * max(1.0, max(p.abs().max().item() for p in policies[0]))


@pytest.mark.slow
def test_lean_torch_trains_the_same_sac_weights_bit_for_bit(validation_restored):
    from stable_baselines3 import SAC
    from stable_baselines3.common.vec_env import DummyVecEnv

    from rewardsmith.workers.backends.lean_sac import LeanSAC
    from rewardsmith.workers.backends.sb3 import build_model
    from rewardsmith.workers.lean_torch import lean_torch

    spec = load_task("adroit-door")  # SAC, 256x256 (its actor's and critics' optimizers both take the foreach form)
    hyperparams = {**spec.train.hyperparams, "learning_starts": 100, "buffer_size": 2000}
    weights = []
    for lean in (False, True):
        env = DummyVecEnv([lambda: make_env(spec)])
        if lean:
            lean_torch()
            model = build_model(spec, env, 3, hyperparams=hyperparams, adam="foreach")
        else:
            torch.distributions.Distribution.set_default_validate_args(True)
            kwargs = spec.train.sb3_policy_kwargs() or None
            model = SAC("MlpPolicy", env, seed=3, verbose=0, policy_kwargs=kwargs, **hyperparams)
        model.learn(400)  # 300 gradient steps
        weights.append({**model.policy.state_dict(), "log_ent_coef": model.log_ent_coef})
    assert weights[0].keys() == weights[1].keys()
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    assert isinstance(model, LeanSAC) and model.policy.critic.optimizer.param_groups[0]["foreach"]
