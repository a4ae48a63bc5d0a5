"""What a training costs on one CPU core: env steps per CPU second from a spec's env and its own `[train]` settings.

For the estimates `rewardsmith tasks`, `check-task`, `new-task` and `calibrate` print before spending anything; one
core, torch on one thread. SAC's rate is measured per env family (its settings barely differ across the shipped
specs); PPO's is modelled from the settings, which change its cost tenfold across the shipped specs
(`bench/ppo_cost.py` fits the model and checks it on specs it was not fitted on).
"""

from __future__ import annotations

from typing import Any

from rewardsmith.task import TaskSpec, TrainDefaults

# SAC training env steps per CPU second, 256x256 networks, (env id prefix) -> steps/s; the training worker's own CPU.
# Meta-World and Fetch, round 38: the equal-learning trainings at 256x256 (100,000 steps, the task's example reward, 3
# seeds each): metaworld-reach 53, -push and -pick-place 70 steps per CPU second; fetch-reach 59, fetch-push 77,
# fetch-pick-and-place 79; round 39: adroit-door 75 (128x128: 133, 1.8x). Shadow Hand is set from its raw-step cost
# relative to Meta-World.
SAC_RATES: dict[str, float] = {
    "Meta-World/": 65.0,
    "Fetch": 70.0,
    "AdroitHand": 75.0,
    "HandManipulate": 55.0,
    "": 80.0,
}

NARROW_SAC_SPEEDUP = 1.8
"""The SAC rates above are for 256x256 networks; a SAC task whose widest layer is at most 128 trains this many times
as many steps per CPU second (the training workers' CPU in the sixth and ninth rounds' equal-learning trainings,
100,000 steps each: metaworld-reach 1.8x, metaworld-pick-place 1.7x, metaworld-push 1.8x, fetch-reach 1.7x,
fetch-push 1.9x, fetch-pick-and-place 1.8x, adroit-door 1.8x; docs/performance.md)."""

# PPO's rate is modelled from its settings (bench/ppo_cost.py, round 39: fitted on 8 of the 15 distinct shipped PPO
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


def steps_per_cpu_second(spec: TaskSpec) -> float:
    """Training env steps per CPU second of one core for this spec (SAC per family, PPO from its settings)."""
    train = spec.train
    if train.algo == "SAC":
        rate = next(r for prefix, r in SAC_RATES.items() if spec.env.startswith(prefix))
        return rate * (NARROW_SAC_SPEEDUP if widest_layer(train.policy_kwargs) <= 128 else 1.0)
    env_us = next(us for prefix, us in ENV_STEP_US.items() if spec.env.startswith(prefix))
    learner_us = sum(c * t for c, t in zip(PPO_LEARNER_US.values(), learner_terms(train), strict=True))
    return 1e6 / (env_us + learner_us)


def default_cost(spec: TaskSpec) -> tuple[int, float]:
    """A default run's env steps (search candidates + final retraining) and its CPU-hours estimate."""
    train, search = spec.train, spec.search
    steps = search.iterations * search.samples * train.timesteps + search.final_seeds * train.final_timesteps
    return steps, steps / steps_per_cpu_second(spec) / 3600.0
