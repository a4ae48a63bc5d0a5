"""Which sandbox layers a GPU training worker can run under: a probe for a machine with an NVIDIA GPU.

    python bench/gpu_sandbox.py            # every variant, one child process each
    python bench/gpu_sandbox.py --json out.json

Each variant runs in a fresh child process what the MJX backend's training worker does: import JAX and make the
CUDA context, build an MJX env on the GPU (before lock-down, as `MjxBackend.prepare`), lock down with the
variant's settings, then compile and run new GPU work (a batch of env steps, and a gradient step of a small MLP,
as PPO's learner). The variants tell apart what a locked-down GPU worker needs: the product's own rules
(`SandboxSettings(gpu=True)`), the CPU worker's rules (the address-space limit counted from zero, no device files),
and seccomp as a CPU worker's or left out. On a machine with no GPU the children run on CPU JAX (a dry run of
the probe itself).

On an H200 (2026-12-04, JAX 0.11.2 with CUDA 13; docs/mjx.md): with no sandbox the work ran; with the CPU
worker's rules XLA could not start a thread ("pthread_create failed"); with the GPU rules but a CPU worker's
seccomp filter the first compile after lock-down failed ("Failed to launch ptxas": XLA compiles PTX with NVIDIA's
`ptxas` program, and that JAX build has no in-process compiler: libnvptxcompiler and libnvJitLink were "not
supported", the driver fallback applies only where no `ptxas` is found); with seccomp left out, all else on, it ran.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

VARIANTS = {
    "no sandbox": {"enabled": False},
    "gpu rules (the product's)": {"gpu": True},
    "cpu rules": {},
    "gpu rules, seccomp as a CPU worker's": {"gpu": True, "skip": "processes"},
    "gpu rules without seccomp": {"gpu": True, "skip": "seccomp"},
}
"""Settings per variant; `skip`: a layer, or its GPU exception, the probe leaves out."""


def child(variant: str) -> None:
    """Run in a child: GPU set-up, lock-down, then new GPU work; print one JSON line."""
    import jax
    import jax.numpy as jnp

    from rewardsmith.sandbox import lockdown, syscall_filter
    from rewardsmith.workers.mjx.envs import MjxEnv

    options = dict(VARIANTS[variant])
    skip = options.pop("skip", None)
    if skip == "seccomp":
        syscall_filter.install = lambda **_: "off: left out by the probe"
    elif skip == "processes":
        install = syscall_filter.install
        syscall_filter.install = lambda **k: install(**{**k, "allow_processes": False})
    started = time.perf_counter()
    backend = jax.default_backend()
    env = MjxEnv("Hopper-v5", measure_only=True)
    d = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(0), 8))
    jax.block_until_ready(d.qpos)
    before = time.perf_counter() - started
    folder = Path(tempfile.mkdtemp())
    folder.chmod(0o777)
    layers = lockdown.lock_down(folder, lockdown.SandboxSettings(**options))
    started = time.perf_counter()
    batch = 1024
    d = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(1), batch))
    action = jnp.zeros((batch, env.action_size))
    run = jax.jit(lambda d: jax.lax.fori_loop(0, 100, lambda _, x: jax.vmap(env.step)(x, action), d))
    height = float(run(d).qpos[:, 1].mean())
    w = jax.random.normal(jax.random.PRNGKey(2), (env.obs_size, 256))

    def loss(w, x):
        return jnp.mean(jnp.tanh(x @ w) ** 2)

    grad = jax.jit(jax.grad(loss))(w, jax.random.normal(jax.random.PRNGKey(3), (4096, env.obs_size)))
    after = time.perf_counter() - started
    print(
        json.dumps(
            {
                "ok": True,
                "backend": backend,
                "height": round(height, 4),
                "grad_norm": round(float(jnp.linalg.norm(grad)), 4),
                "setup_s": round(before, 1),
                "locked_work_s": round(after, 1),
                "layers": layers,
            }
        )
    )


def probe(variant: str, timeout_s: float) -> dict:
    """One variant in a child process: its JSON line, or how it failed."""
    started = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--child", variant],
            capture_output=True,
            text=True,
            timeout=timeout_s,
            cwd=ROOT,
            env=child_env(),
        )
    except subprocess.TimeoutExpired as e:
        return {"ok": False, "why": f"timed out after {timeout_s:.0f} s", "stderr": str(e.stderr or "")[-1500:]}
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode == 0 and lines:
        return {**lines[-1], "wall_s": round(time.perf_counter() - started, 1)}
    return {"ok": False, "why": f"exit {done.returncode}", "stderr": done.stderr[-2500:]}


def child_env() -> dict[str, str]:
    """The children's environment: a share of the GPU's memory each (they run at once)."""
    return {**os.environ, "XLA_PYTHON_CLIENT_MEM_FRACTION": "0.1"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--child")
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS))
    parser.add_argument("--timeout", type=float, default=180)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return
    with ThreadPoolExecutor(len(args.variants)) as pool:  # at once: each child compiles on its own cores
        results = dict(zip(args.variants, pool.map(lambda v: probe(v, args.timeout), args.variants), strict=True))
    for variant, result in results.items():
        verdict = "runs" if result["ok"] else f"FAILS ({result['why']})"
        print(f"{variant:32s} {verdict}", flush=True)
        if result["ok"]:
            print(f"    backend {result['backend']}, locked-down work {result['locked_work_s']} s", flush=True)
            for name, status in result["layers"].items():
                print(f"    {name:9s} {status}", flush=True)
        else:
            print("    " + result["stderr"].strip().replace("\n", "\n    ")[-1200:], flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
