"""SB3's SAC with the same arithmetic and less work around it: `LeanSAC` trains the same weights, bit for bit.

With the specs' one gradient step per env step, `SAC.train` runs once per env step, so what it does besides the
arithmetic is paid 100,000 times in a training. `LeanSAC.train` is SB3 2.9's, less three pieces of that work
(docs/performance.md, "Seventh round"):
- the actor's loss backpropagates through the critics to reach the actions, and SB3 lets it also compute the
  critics' weight gradients, which the critics' next `zero_grad` throws away. Here the critics' own weights are
  frozen while the actor's loss is built, so only the gradients that are used are computed;
- the target critics' Polyak update is one `torch._foreach_*` call per operation over all their weights,
  instead of two calls per tensor (the same element-wise arithmetic);
- switching the policy between training and evaluation mode walks every module twice per env step. Where no
  module behaves differently in the two modes (`mode_matters`), the switch is skipped.

`tests/test_lean_sac.py` checks that the actor, critics, target critics and entropy coefficient end bit for bit
equal to SB3's SAC from the same seed; SB3 is pinned to 2.9.x in `pyproject.toml` for that reason.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import torch
from stable_baselines3 import SAC
from stable_baselines3.common.policies import ContinuousCritic
from stable_baselines3.common.torch_layers import FlattenExtractor
from stable_baselines3.common.utils import polyak_update
from stable_baselines3.sac.policies import Actor, SACPolicy
from torch.nn import functional as F

MODE_FREE = (  # modules whose forward reads no `self.training`
    SACPolicy,
    Actor,
    ContinuousCritic,
    FlattenExtractor,
    torch.nn.Sequential,
    torch.nn.ModuleList,
    torch.nn.Linear,
    torch.nn.Flatten,
    torch.nn.Identity,
    torch.nn.ReLU,
    torch.nn.Tanh,
    torch.nn.ELU,
    torch.nn.LeakyReLU,
    torch.nn.SiLU,
    torch.nn.GELU,
    torch.nn.Softplus,
    torch.nn.Hardtanh,
)


def mode_matters(policy: torch.nn.Module) -> bool:
    """Whether any module of `policy` may compute differently in training and evaluation mode (dropout, batch
    norm, anything not known to be free of it: `MODE_FREE`, matched by exact type)."""
    return any(type(module) not in MODE_FREE for module in policy.modules())


@contextmanager
def frozen(parameters: list[torch.nn.Parameter]):
    """`parameters` without `requires_grad` inside the block: autograd computes no gradient for them. Each gets
    its own flag back on leaving."""
    flags = [parameter.requires_grad for parameter in parameters]
    for parameter in parameters:
        parameter.requires_grad_(False)
    try:
        yield
    finally:
        for parameter, flag in zip(parameters, flags, strict=True):
            parameter.requires_grad_(flag)


LEAN_ATTRIBUTES = ("_critic_weights", "_critics", "_target_critics")
"""What `LeanSAC` keeps beside SAC's attributes (set in `_setup_model`; never saved)."""


class LeanSAC(SAC):
    """stable-baselines3's SAC, training the same weights bit for bit with less work per gradient step."""

    def _setup_model(self) -> None:
        super()._setup_model()
        actor_weights = {id(p) for p in self.actor.parameters()}
        self._critic_weights = [p for p in self.critic.parameters() if id(p) not in actor_weights]
        self._critics: list[torch.Tensor] = list(self.critic.parameters())
        self._target_critics: list[torch.Tensor] = list(self.critic_target.parameters())
        if not mode_matters(self.policy):
            self.policy.set_training_mode = _mode_needs_no_switch  # type: ignore[method-assign]

    def _excluded_save_params(self) -> list[str]:
        """SB3's, and this class's views of the networks: `model.zip` stays what SB3's SAC writes."""
        return [*super()._excluded_save_params(), *LEAN_ATTRIBUTES]

    def train(self, gradient_steps: int, batch_size: int = 64) -> None:
        """SB3 2.9's `SAC.train`, less the critics' weight gradients from the actor's loss, with a one-call
        Polyak update (see the module docstring)."""
        self.policy.set_training_mode(True)
        optimizers = [self.actor.optimizer, self.critic.optimizer]
        if self.ent_coef_optimizer is not None:
            optimizers += [self.ent_coef_optimizer]
        self._update_learning_rate(optimizers)

        ent_coef_losses, ent_coefs = [], []
        actor_losses, critic_losses = [], []
        for gradient_step in range(gradient_steps):
            replay_data = self.replay_buffer.sample(batch_size, env=self._vec_normalize_env)  # type: ignore[union-attr]
            discounts = replay_data.discounts if replay_data.discounts is not None else self.gamma
            if self.use_sde:
                self.actor.reset_noise()
            actions_pi, log_prob = self.actor.action_log_prob(replay_data.observations)
            log_prob = log_prob.reshape(-1, 1)

            ent_coef_loss = None
            if self.ent_coef_optimizer is not None and self.log_ent_coef is not None:
                ent_coef = torch.exp(self.log_ent_coef.detach())
                assert isinstance(self.target_entropy, float)
                ent_coef_loss = -(self.log_ent_coef * (log_prob + self.target_entropy).detach()).mean()
                ent_coef_losses.append(ent_coef_loss.item())
            else:
                ent_coef = self.ent_coef_tensor
            ent_coefs.append(ent_coef.item())
            if ent_coef_loss is not None and self.ent_coef_optimizer is not None:
                self.ent_coef_optimizer.zero_grad()
                ent_coef_loss.backward()
                self.ent_coef_optimizer.step()

            with torch.no_grad():
                next_actions, next_log_prob = self.actor.action_log_prob(replay_data.next_observations)
                next_q_values = torch.cat(self.critic_target(replay_data.next_observations, next_actions), dim=1)
                next_q_values, _ = torch.min(next_q_values, dim=1, keepdim=True)
                next_q_values = next_q_values - ent_coef * next_log_prob.reshape(-1, 1)
                target_q_values = replay_data.rewards + (1 - replay_data.dones) * discounts * next_q_values

            current_q_values = self.critic(replay_data.observations, replay_data.actions)
            critic_loss = 0.5 * sum(F.mse_loss(current_q, target_q_values) for current_q in current_q_values)
            assert isinstance(critic_loss, torch.Tensor)
            critic_losses.append(critic_loss.item())
            self.critic.optimizer.zero_grad()
            critic_loss.backward()
            self.critic.optimizer.step()

            with frozen(self._critic_weights):
                q_values_pi = torch.cat(self.critic(replay_data.observations, actions_pi), dim=1)
            min_qf_pi, _ = torch.min(q_values_pi, dim=1, keepdim=True)
            actor_loss = (ent_coef * log_prob - min_qf_pi).mean()
            actor_losses.append(actor_loss.item())
            self.actor.optimizer.zero_grad()
            actor_loss.backward()
            self.actor.optimizer.step()

            if gradient_step % self.target_update_interval == 0:
                with torch.no_grad():
                    torch._foreach_mul_(self._target_critics, 1 - self.tau)
                    torch._foreach_add_(self._target_critics, self._critics, alpha=self.tau)
                polyak_update(self.batch_norm_stats, self.batch_norm_stats_target, 1.0)

        self._n_updates += gradient_steps
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/ent_coef", np.mean(ent_coefs))
        self.logger.record("train/actor_loss", np.mean(actor_losses))
        self.logger.record("train/critic_loss", np.mean(critic_losses))
        if len(ent_coef_losses) > 0:
            self.logger.record("train/ent_coef_loss", np.mean(ent_coef_losses))


def _mode_needs_no_switch(mode: bool) -> None:
    """`set_training_mode` of a policy none of whose modules depends on the mode."""


__all__ = ["LeanSAC", "frozen", "mode_matters"]
