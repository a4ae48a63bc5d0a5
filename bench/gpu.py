"""The MJX backend's figures on whatever JAX device is present (CPU here; a GPU unchanged).

    python bench/gpu.py                                   # physics alone, every supported env, batch 64
    python bench/gpu.py --envs Hopper-v5 --batches 1024 8192 --steps 200
    python bench/gpu.py --train inverted-double-pendulum-balance --train-steps 200000   # training + transfer gap
    python bench/gpu.py --envs --agreement Ant-v5        # MJX vs Gymnasium in distribution (random policy)

Physics: steps/s of the jitted, vmapped MJX step (frame skip included; one "step" is one control step of one
env), after compilation (compile time printed apart). Training (`--train TASK`): the whole `rewardsmith train
--backend mjx` command (sandbox, tracing, compile, PPO, the trusted CPU evaluation), in wall time, and the
transfer gap: the trained policy's trusted fitness on the CPU Gymnasium env (the evaluation worker) against its
mean episode return in MJX during the last training iterations (metrics.jsonl).

Agreement (`--agreement ENV`), for envs whose trajectories drift apart (Ant's contacts): MJX and Gymnasium each run
a uniform random policy for `--episodes` episodes of at most `--horizon` steps from their own resets. Each episode
gives one value per statistic (independent samples): its mean forward velocity (`qvel[0]`), mean height
(`qpos[2]`), length (to the first termination), and mean |contact-force observation| (`obs[27:]`, Ant's clipped
`cfrc_ext`); the two-sample Kolmogorov-Smirnov test compares each. An env agrees when every p is at least 0.01.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def physics(env_id: str, batch: int, steps: int) -> tuple[float, float]:
    """(compile seconds, control steps per second) of `batch` MJX envs stepped `steps` times."""
    import jax
    import jax.numpy as jnp

    from rewardsmith.workers.mjx.envs import MjxEnv

    env = MjxEnv(env_id, measure_only=True)
    d = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), batch))
    action = jnp.zeros((batch, env.action_size))

    @jax.jit
    def run(d):
        return jax.lax.fori_loop(0, steps, lambda _, x: jax.vmap(env.step)(x, action), d)

    started = time.perf_counter()
    compiled = run.lower(d).compile()
    compile_s = time.perf_counter() - started
    started = time.perf_counter()
    jax.block_until_ready(compiled(d).qpos)
    return compile_s, batch * steps / (time.perf_counter() - started)


def training(task: str, steps: int) -> dict:
    """`rewardsmith train --backend mjx` on the task's example reward: wall time, trusted fitness vs MJX return."""
    from rewardsmith.files import read_jsonl
    from rewardsmith.task import load_task

    spec = load_task(task)
    reward = ROOT / "envs" / "examples" / f"{task.replace('-', '_')}.py"
    out = Path(tempfile.mkdtemp()) / "out"
    cmd = [sys.executable, "-m", "rewardsmith", "train", task, str(reward), "--backend", "mjx"]
    cmd += ["--timesteps", str(steps), "--out", str(out)]
    started = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    wall = time.perf_counter() - started
    summary = json.loads((out / "summary.json").read_text())
    evaluation = json.loads((out / "eval" / "evaluation.json").read_text())
    records, _ = read_jsonl(out / "metrics.jsonl")
    tail = [r for r in records if r.get("kind") == "train"][-5:]
    return {
        "task": spec.name,
        "backend": summary.get("backend"),  # sb3 when the reward did not trace and the job fell back
        "reward_rewritten": summary.get("reward_rewritten"),
        "wall_s": round(wall, 1),
        "train_steps_per_s": summary.get("steps_per_s"),
        "n_envs": summary.get("n_envs"),
        "trusted_fitness_cpu_env": evaluation.get("fitness_mean"),
        "trusted_ep_len_cpu_env": sum(evaluation["lengths"]) / max(len(evaluation["lengths"]), 1),
        "mjx_ep_len_last_iterations": sum(r["ep_len"] for r in tail) / max(len(tail), 1),
        "mjx_return_last_iterations": sum(r["return"] for r in tail) / max(len(tail), 1),
    }


STATISTICS = ("forward_velocity", "height", "length", "contact_obs")


def _episode_stats(vx, z, contact, ended) -> dict[str, np.ndarray]:
    """Per-episode statistics from per-step arrays of shape (episodes, horizon), counted up to the first end."""
    horizon = ended.shape[1]
    length = np.where(ended.any(1), ended.argmax(1) + 1, horizon)
    alive = np.arange(horizon)[None] < length[:, None]

    def mean(x):
        return (x * alive).sum(1) / length

    return {
        "forward_velocity": mean(vx),
        "height": mean(z),
        "length": length.astype(float),
        "contact_obs": mean(contact),
    }


def mjx_sample(env_id: str, episodes: int, horizon: int, seed: int) -> dict[str, np.ndarray]:
    """The statistics of `episodes` MJX episodes (one batch, one jit)."""
    import jax
    import jax.numpy as jnp

    from rewardsmith.workers.mjx.envs import MjxEnv

    env = MjxEnv(env_id, measure_only=True)
    low, high = jnp.asarray(env.action_low), jnp.asarray(env.action_high)

    def run(key):
        k_reset, k_act = jax.random.split(key)
        d = jax.vmap(env.reset)(jax.random.split(k_reset, episodes))

        def body(d, k):
            a = jax.random.uniform(k, (episodes, env.action_size), minval=low, maxval=high)
            d = jax.vmap(env.step)(d, a)
            obs = jax.vmap(env.observe)(d)
            return d, (d.qvel[:, 0], d.qpos[:, 2], jnp.abs(obs[:, 27:]).mean(1), jax.vmap(env.terminated)(d))

        return jax.lax.scan(body, d, jax.random.split(k_act, horizon))[1]

    vx, z, contact, ended = (np.asarray(x).T for x in jax.jit(run)(jax.random.PRNGKey(seed)))
    return _episode_stats(vx, z, contact, ended)


def gym_sample(env_id: str, episodes: int, horizon: int, seed: int) -> dict[str, np.ndarray]:
    """The statistics of `episodes` episodes of Gymnasium's own env."""
    import gymnasium as gym

    env = gym.make(env_id)
    rng = np.random.default_rng(seed)
    shape = (episodes, horizon)
    vx, z, contact, ended = np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape, bool)
    for e in range(episodes):
        env.reset(seed=seed + e)
        data = env.unwrapped.data
        for t in range(horizon):
            obs, _, terminated, _, _ = env.step(rng.uniform(env.action_space.low, env.action_space.high))
            vx[e, t], z[e, t], contact[e, t], ended[e, t] = (
                data.qvel[0],
                data.qpos[2],
                np.abs(obs[27:]).mean(),
                terminated,
            )
            if terminated:
                break
    env.close()
    return _episode_stats(vx, z, contact, ended)


def compare(env_id: str, episodes: int, horizon: int, seed: int = 0) -> dict[str, dict]:
    """Per statistic: the KS p-value and the two means (MJX, Gymnasium)."""
    from scipy.stats import ks_2samp

    ours, theirs = mjx_sample(env_id, episodes, horizon, seed), gym_sample(env_id, episodes, horizon, seed)
    out = {}
    for name in STATISTICS:
        a, b = ours[name], theirs[name]
        p = 1.0 if np.array_equal(np.unique(a), np.unique(b)) and len(np.unique(a)) == 1 else ks_2samp(a, b).pvalue
        out[name] = {
            "p": round(float(p), 4),
            "mjx_mean": round(float(a.mean()), 4),
            "gym_mean": round(float(b.mean()), 4),
        }
    return out


def main() -> None:
    from rewardsmith.workers.mjx.envs import ENVS, supported

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", nargs="*", default=[e for e in ENVS if supported(e)])
    parser.add_argument("--batches", nargs="+", type=int, default=[64])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--train", nargs="*", default=[])
    parser.add_argument("--train-steps", type=int, default=200_000)
    parser.add_argument("--agreement", nargs="*", default=[])
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--horizon", type=int, default=200)
    args = parser.parse_args()
    import jax

    print(f"device: {jax.devices()[0]}")
    for env_id in args.envs:
        for batch in args.batches:
            compile_s, rate = physics(env_id, batch, args.steps)
            print(
                f"physics {env_id:28s} batch {batch:6d}: {rate:12,.0f} steps/s (compile {compile_s:.0f} s)", flush=True
            )
    for env_id in args.agreement:
        print(json.dumps({"agreement": env_id, **compare(env_id, args.episodes, args.horizon)}), flush=True)
    for task in args.train:
        print(json.dumps(training(task, args.train_steps)), flush=True)


if __name__ == "__main__":
    main()
