"""`LeanSAC` trains the same weights as stable-baselines3's SAC, bit for bit, and skips the work it says it skips."""

from __future__ import annotations

import pytest
import torch
from conftest import pendulum_sac as trained
from stable_baselines3 import SAC

from rewardsmith.workers.backends.lean_sac import LeanSAC, frozen, mode_matters

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def assert_same_weights(plain, lean) -> None:
    plain_tensors, lean_tensors = plain.policy.state_dict(), lean.policy.state_dict()
    assert plain_tensors.keys() == lean_tensors.keys()
    for name, tensor in plain_tensors.items():
        assert torch.equal(tensor, lean_tensors[name]), name


@pytest.mark.parametrize(
    "kwargs",
    [
        {},  # the specs' case: learned entropy coefficient, a target update every step
        {"ent_coef": 0.1, "target_update_interval": 2, "gradient_steps": 2, "train_freq": 2},
    ],
)
def test_lean_sac_trains_sb3s_weights_bit_for_bit(kwargs):
    plain = trained(SAC, **kwargs)
    lean = trained(LeanSAC, **kwargs)
    assert_same_weights(plain, lean)
    if plain.log_ent_coef is not None:
        assert torch.equal(plain.log_ent_coef, lean.log_ent_coef)
    assert lean._n_updates == plain._n_updates > 0


def test_the_actors_loss_computes_no_gradient_for_the_critics_weights():
    """SB3 computes each critic weight's gradient twice per step (the critics' loss, then the actor's, whose
    result the next `zero_grad` discards); LeanSAC once."""
    counts = {}
    for cls in (SAC, LeanSAC):
        model = trained(cls, steps=101)
        weight = next(model.critic.q_networks[0].parameters())
        calls: list[int] = []
        weight.register_hook(calls.append)
        model.train(gradient_steps=1, batch_size=64)
        counts[cls.__name__] = len(calls)
    assert counts == {"SAC": 2, "LeanSAC": 1}


def test_frozen_restores_each_flag_even_on_error():
    weight, fixed = torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.ones(2), requires_grad=False)
    with pytest.raises(RuntimeError), frozen([weight, fixed]):
        assert not weight.requires_grad
        raise RuntimeError("inside")
    assert weight.requires_grad and not fixed.requires_grad


def test_the_mode_switch_is_skipped_only_where_no_module_depends_on_the_mode():
    lean = trained(LeanSAC, steps=10)
    assert not mode_matters(lean.policy)
    before = lean.policy.actor.training
    lean.policy.set_training_mode(not before)
    assert lean.policy.actor.training == before  # skipped: the policy stayed as it was

    class Noisy(torch.nn.Dropout):  # any unknown module counts as mode-dependent
        def __init__(self):
            super().__init__(p=0.0)

    with_dropout = trained(LeanSAC, steps=10, policy_kwargs={"activation_fn": Noisy})
    assert mode_matters(with_dropout.policy)
    with_dropout.policy.set_training_mode(True)
    assert with_dropout.policy.actor.training
    with_dropout.policy.set_training_mode(False)
    assert not with_dropout.policy.actor.training


def test_lean_sac_saves_what_sb3s_sac_saves(tmp_path):
    """`model.zip` holds SB3's fields only: the lean views of the networks would pickle the weights into `data`."""
    import json
    import zipfile

    keys = {}
    for cls in (SAC, LeanSAC):
        path = tmp_path / f"{cls.__name__}.zip"
        trained(cls, steps=10).save(path)
        with zipfile.ZipFile(path) as archive:
            keys[cls] = set(json.loads(archive.read("data")))
    assert keys[LeanSAC] == keys[SAC]
    SAC.load(tmp_path / "LeanSAC.zip")  # the video worker's reader
