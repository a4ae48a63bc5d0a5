"""What a training costs on one CPU core: env steps per CPU second from a spec's env and its own `[train]` settings.

For the estimates `rewardsmith tasks`, `check-task`, `new-task` and `calibrate` print before spending anything; one
core, torch on one thread. A step costs the env's step (with the reward file, per env id) plus the learner's share,
modelled from the settings: PPO's from its envs, batch, epochs and network (`bench/training_cost.py` fits it and checks it
on specs it was not fitted on), SAC's from its updates per step and network. Each number's source is beside it.
"""

from __future__ import annotations

from typing import Any

from rewardsmith.task import TaskSpec, TrainDefaults

# PPO's rate is modelled from its settings (bench/training_cost.py, round 39: fitted on 8 of the 15 distinct shipped PPO
# specs, it predicted the other 7's bare SB3 PPO rates within 0.86x to 1.29x, geometric mean 1.02; the single rate
# per algorithm before it was off by up to 3.5x). Bare PPO's CPU is within the run-to-run spread of the training
# worker's (hopper-hop: 3,521 steps per CPU second bare here, 4,515 to 5,163 in the equal-learning trainings).
# CPU microseconds of one env step through `ApplyReward` with the task's example reward, random actions, per env id
# prefix; an env not named here is costed at the last entry's.
ENV_STEP_US: dict[str, float] = {
    "Acrobot": 41.0,
    "Ant": 267.0,
    "BipedalWalker": 171.0,
    "CartPole": 11.0,
    "HalfCheetah": 53.0,
    "Hopper": 115.0,
    "InvertedDoublePendulum": 67.0,
    "LunarLander": 49.0,
    "MountainCar": 13.0,
    "Pendulum": 20.0,
    "Pusher": 71.0,
    "Reacher": 46.0,
    "Walker2d": 161.0,
    # the SAC families, measured the same way (round 39; Meta-World's per task: reach 473, peg-insert-side 456, push
    # 1,019, pick-place 1,085)
    "Meta-World/": 800.0,
    "Fetch": 1390.0,
    "AdroitHand": 390.0,
    "HandManipulate": 1660.0,
    "": 200.0,
}

# The learner, CPU microseconds: a policy call per vectorized step (spread over n_envs), and per epoch over the
# rollout a minibatch's fixed cost (spread over the batch) and each sample's, by the widest layer (at 64 wide the
# fixed costs dominate: the fit puts a sample's own at 0).
PPO_LEARNER_US: dict[str, float] = {
    "policy_call": 365.0,
    "minibatch": 2140.0,
    "per_sample_64": 0.0,
    "per_sample_256": 15.0,
}

# SAC's update (a gradient step of both critics and the actor on a batch of 256), CPU microseconds by the widest layer
# w: a + b w^2, fitted on the training worker's own CPU in the equal-learning trainings of metaworld-push and
# -pick-place (100,000 steps, 3 seeds each; per step less the env's: 13,250 at 256x256, 7,050 at 128x128). On the
# Fetch and Adroit trainings it was not fitted on (fetch-push, fetch-pick-and-place, adroit-door, both networks) it
# predicts 0.80x to 1.00x their measured rates (measured after the fit: adroit-hammer's in round 40, 1.13x and 1.16x;
# shadowhand-block-rotate-z's in round 41, 1.08x at both widths), and 1.16x to 1.36x the reach tasks' shorter ones of
# round 32
# (bench/training_cost.py --sac; docs/performance.md, "What a training costs").
SAC_UPDATE_US = {"a": 4984.0, "b": 0.1261}

SB3_DEFAULT_WIDTH = {"PPO": 64, "SAC": 256}


def widest_layer(policy_kwargs: dict[str, Any], algo: str = "SAC") -> int:
    """The widest hidden layer `net_arch` names (a list, or a dict of lists per network); SB3's default for the
    algorithm (PPO 64, SAC 256) when it names none."""
    arch = policy_kwargs.get("net_arch")
    layers = [*arch.values()] if isinstance(arch, dict) else [arch]
    widths = [w for layer in layers if isinstance(layer, list) for w in layer if isinstance(w, int)]
    return max(widths, default=SB3_DEFAULT_WIDTH.get(algo, 256))


def ppo_settings(train: TrainDefaults) -> tuple[int, int, int, int, int]:
    """(n_envs, n_steps, batch_size, n_epochs, widest layer), with SB3's defaults where the spec names none."""
    hyper = train.hyperparams
    return (
        train.n_envs,
        int(hyper.get("n_steps", 2048)),
        int(hyper.get("batch_size", 64)),
        int(hyper.get("n_epochs", 10)),
        widest_layer(train.policy_kwargs, "PPO"),
    )


def learner_terms(train: TrainDefaults) -> list[float]:
    """The PPO learner's cost per env step as coefficients of `PPO_LEARNER_US`'s four constants, in their order:
    1/n_envs, n_epochs/batch_size, and n_epochs split between the 64- and 256-wide per-sample costs (linear in the
    width squared between them, a network's arithmetic)."""
    n_envs, _n_steps, batch, epochs, width = ppo_settings(train)
    wide = (max(width, 64) ** 2 - 64**2) / (256**2 - 64**2)
    return [1 / n_envs, epochs / batch, epochs * (1 - wide), epochs * wide]


def sac_updates_per_step(spec: TaskSpec) -> float:
    """SAC's gradient steps per env step from `train_freq` (vectorized steps of `n_envs` envs, or episodes of the
    spec's or a 1,000-step time limit) and `gradient_steps` (-1: as many as env steps collected)."""
    hyper = spec.train.hyperparams
    freq = hyper.get("train_freq", 1)
    every, unit = (freq[0], freq[1]) if isinstance(freq, list | tuple) else (freq, "step")
    steps = int(every) * (1 if unit == "step" else spec.train.max_episode_steps or 1000) * spec.train.n_envs
    gradient_steps = int(hyper.get("gradient_steps", 1))
    return 1.0 if gradient_steps < 0 else gradient_steps / max(steps, 1)


def steps_per_cpu_second(spec: TaskSpec) -> float:
    """Training env steps per CPU second of one core for this spec (module docstring)."""
    train = spec.train
    env_us = next(us for prefix, us in ENV_STEP_US.items() if spec.env.startswith(prefix))
    if train.algo == "SAC":
        width = widest_layer(train.policy_kwargs)
        learner_us = sac_updates_per_step(spec) * (SAC_UPDATE_US["a"] + SAC_UPDATE_US["b"] * width**2)
    else:
        learner_us = sum(c * t for c, t in zip(PPO_LEARNER_US.values(), learner_terms(train), strict=True))
    return 1e6 / (env_us + learner_us)


def default_cost(spec: TaskSpec) -> tuple[int, float]:
    """A default run's env steps (search candidates + final retraining) and its CPU-hours estimate."""
    train, search = spec.train, spec.search
    steps = search.iterations * search.samples * train.timesteps + search.final_seeds * train.final_timesteps
    return steps, steps / steps_per_cpu_second(spec) / 3600.0
