"""The MJX backend's figures on whatever JAX device is present (CPU here; a GPU unchanged).

    python bench/gpu.py                                   # physics alone, IDP and Hopper, batches 16 and 256
    python bench/gpu.py --envs Hopper-v5 --batches 1024 8192 --steps 200
    python bench/gpu.py --train inverted-double-pendulum-balance --train-steps 200000   # training + transfer gap

Physics: steps/s of the jitted, vmapped MJX step (frame skip included; one "step" is one control step of one
env), after compilation (compile time printed apart). Training (`--train TASK`): the whole `rewardsmith train
--backend mjx` command (sandbox, tracing, compile, PPO, the trusted CPU evaluation), in wall time, and the
transfer gap: the trained policy's trusted fitness on the CPU Gymnasium env (the evaluation worker) against its
mean episode return in MJX during the last training iterations (metrics.jsonl).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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
        "wall_s": round(wall, 1),
        "train_steps_per_s": summary.get("steps_per_s"),
        "n_envs": summary.get("n_envs"),
        "trusted_fitness_cpu_env": evaluation.get("fitness_mean"),
        "trusted_ep_len_cpu_env": sum(evaluation["lengths"]) / max(len(evaluation["lengths"]), 1),
        "mjx_ep_len_last_iterations": sum(r["ep_len"] for r in tail) / max(len(tail), 1),
        "mjx_return_last_iterations": sum(r["return"] for r in tail) / max(len(tail), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envs", nargs="+", default=["InvertedDoublePendulum-v5", "Hopper-v5"])
    parser.add_argument("--batches", nargs="+", type=int, default=[16, 256])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--train", nargs="*", default=[])
    parser.add_argument("--train-steps", type=int, default=200_000)
    args = parser.parse_args()
    import jax

    print(f"device: {jax.devices()[0]}")
    for env_id in args.envs:
        for batch in args.batches:
            compile_s, rate = physics(env_id, batch, args.steps)
            print(
                f"physics {env_id:28s} batch {batch:6d}: {rate:12,.0f} steps/s (compile {compile_s:.0f} s)", flush=True
            )
    for task in args.train:
        print(json.dumps(training(task, args.train_steps)), flush=True)


if __name__ == "__main__":
    main()
