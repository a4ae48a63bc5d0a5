"""Env steps/s per task family: raw stepping, and PPO/SAC training with a reward file vs the native reward.

    python bench/throughput.py                      # every family, small counts
    python bench/throughput.py --families meta peer --train-steps 2000
    python bench/throughput.py --vec                # also PPO with n_envs=4: DummyVecEnv vs SubprocVecEnv
    python bench/throughput.py --backends hopper-hop halfcheetah-run --train-steps 20000   # issue 24's table

Per family it prints: raw `env.step` steps/s (random actions), the same through `ApplyReward` with the
native reward and with the family's example reward file (`envs/examples/`), then training steps/s of the
spec's algorithm (PPO or SAC, one env) with the native reward and with the reward file, and the reward
file's training overhead in percent. A second table splits the per-step cost: the bare env step, what
`ApplyReward` adds with the native reward (the State snapshot), and the reward call (its first reads of
the State's named fields included), of which the reward's own numpy work alone is the same call
repeated on the already-read states. Native and file runs alternate within each repetition and the best
of `--reps` is kept. Single-threaded torch, CPU. Rates are per CPU-second of this process
(`time.process_time`), so that other work on a shared machine disturbs them far less than wall time
would; `--wall` measures wall time instead (the `--vec` SubprocVecEnv rows always do).

`--backends TASK...` prints instead, per task: the raw physics rate (random actions, bare env), the same env
through `ApplyReward` with the example reward file (the reward path alone, before any learning), bare SB3
PPO with the reward file at the settings before issue 24 (`OLD` and `OLD_NETS` of bench/equal_learning.py) and
at the spec's settings (its `n_envs`, batch, epochs and network), for `--bare-steps`, then the whole
`rewardsmith train` command for each training backend (reward file, sandbox, the critic's timing run, the
trusted evaluation and start-up all included) in wall-clock time, and in CPU seconds (its training and
evaluation workers; and the CLI process with them), each as steps/s and as a share of the raw rate in the
same clock; the machine and its load average before and after, and whether the issue's goal (the whole command
at >= 0.6 of the raw wall-clock rate) is met, with the share in CPU time beside it.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from rewardsmith.reward.contract import require_static_ok
from rewardsmith.reward.wrappers import ApplyReward
from rewardsmith.sandbox.policy import load_reward
from rewardsmith.task import ENVS_DIR, load_task, make_env

EXAMPLES = ENVS_DIR / "examples"
clock = time.process_time  # CPU time of this process: other work on a shared machine barely moves it
FAMILIES = {  # family -> (representative task, its example reward)
    "locomotion": ("halfcheetah-run", "halfcheetah_run.py"),
    "meta": ("metaworld-reach", "metaworld_reach.py"),
    "fetch": ("fetch-push", "fetch_push.py"),
    "adroit": ("adroit-door", "adroit_door.py"),
    "shadowhand": ("shadowhand-block-rotate-z", "shadowhand_block_rotate_z.py"),
    "peer": ("mountaincar-reach-flag", "mountaincar_reach_flag.py"),
    "box2d": ("bipedalwalker-walk", "bipedalwalker_walk.py"),
}


def alternating(variants, reps: int):
    """`variants` in turn, `reps` times, in reverse order every other time, so that a change of the machine's load
    or a warm cache falls on each variant alike (side-by-side benches)."""
    variants = tuple(variants)
    for rep in range(reps):
        yield from variants if rep % 2 == 0 else variants[::-1]


def reward_for(example: str):
    """The family's example reward, loaded as the worker loads it (after the static checks)."""
    path = EXAMPLES / example
    return load_reward(require_static_ok(path), filename=str(path))


class TimedReward:
    """A reward function that sums the time of its calls and keeps the last `keep` calls' arguments."""

    def __init__(self, fn, keep: int = 200) -> None:
        self.fn, self.keep = fn, keep
        self.seconds, self.calls, self.recent = 0.0, 0, []

    def __call__(self, state, action, next_state):
        started = clock()
        result = self.fn(state, action, next_state)
        self.seconds += clock() - started
        self.calls += 1
        if len(self.recent) < self.keep:
            self.recent.append((state, action, next_state))
        return result

    def warm_us(self, repeat: int = 5) -> float:
        """Microseconds per call on states whose fields were already read: the reward's own work alone."""
        started = clock()
        for _ in range(repeat):
            for args in self.recent:
                self.fn(*args)
        return (clock() - started) / (repeat * len(self.recent)) * 1e6


def step_rate(spec, reward_fn, source: str | None, steps: int) -> float:
    """Env steps/s on pre-drawn random actions: the bare env (source None) or through ApplyReward."""
    env = make_env(spec) if source is None else ApplyReward(make_env(spec), reward_fn=reward_fn, source=source)
    env.reset(seed=0)
    env.action_space.seed(0)
    actions = [env.action_space.sample() for _ in range(steps)]
    started = clock()
    for action in actions:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
    rate = steps / (clock() - started)
    env.close()
    return rate


def train_rate(
    spec,
    reward_fn,
    source: str,
    steps: int,
    n_envs: int = 1,
    vec: str = "dummy",
    overrides: dict | None = None,
    policy_kwargs: dict | None = None,
) -> float:
    from stable_baselines3 import PPO, SAC
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    def make():
        return ApplyReward(make_env(spec), reward_fn=reward_fn, source=source)

    env = (SubprocVecEnv if vec == "subproc" else DummyVecEnv)([make] * n_envs)
    algo = {"PPO": PPO, "SAC": SAC}[spec.train.algo]
    hyper = {**spec.train.hyperparams, **(overrides or {})}
    if spec.train.algo == "SAC":
        hyper.update(learning_starts=min(hyper.get("learning_starts", 100), steps // 4), buffer_size=steps + 10)
    else:
        hyper.update(n_steps=max(64, min(hyper.get("n_steps", 512), steps // n_envs)))
    kwargs = {**spec.train.sb3_policy_kwargs(), **(policy_kwargs or {})}
    model = algo("MlpPolicy", env, seed=0, verbose=0, policy_kwargs=kwargs, **hyper)
    timer = time.perf_counter if vec == "subproc" else clock  # subprocesses' CPU time is not this process's
    started = timer()
    model.learn(steps)
    rate = model.num_timesteps / (timer() - started)
    env.close()
    return rate


def cli_train(task: str, example: str, steps: int) -> tuple[float, float, float]:
    """Wall seconds of `rewardsmith train TASK REWARD --timesteps STEPS` (start-up, the critic's timing run, the
    sandboxed training and the evaluation worker all included), the CPU seconds of its training and evaluation
    workers (their own, from their summaries), and the CPU seconds of the CLI and its 2 workers (the CLI's own
    from this process's reaped children, plus the workers'; the warm fork server, ended by its parent's death
    and so never reaped here, and its one-off imports are not in it). Other load on the machine disturbs CPU
    seconds far less than the wall clock."""
    import json
    import resource
    import subprocess
    import sys
    import tempfile

    with tempfile.TemporaryDirectory(prefix="throughput-") as tmp:
        out = Path(tmp) / "out"
        command = [sys.executable, "-m", "rewardsmith", "train", task, str(EXAMPLES / example)]
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run([*command, "--timesteps", str(steps), "--out", str(out)], check=True, capture_output=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = sum(
            json.loads((out / name).read_text()).get("cpu_s", 0.0) for name in ("summary.json", "eval/summary.json")
        )
    return wall, cpu, cpu + after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime


def reward_alone(spec, reward_fn, steps: int, reps: int = 3) -> tuple[float, float]:
    """The bare env's steps/s and the same env's through `ApplyReward` with `reward_fn` (the reward file alone,
    before any learning: the train env of `rewardsmith train` less SB3's Monitor), alternating, best of `reps`."""
    raw = alone = 0.0
    for _ in range(reps):
        raw = max(raw, step_rate(spec, None, None, steps))
        alone = max(alone, step_rate(spec, reward_fn, "candidate", steps))
    return raw, alone


def net_size(policy_kwargs: dict) -> str:
    """The policy network's hidden layers, e.g. '64x64'."""
    arch = policy_kwargs.get("net_arch", [64, 64])
    return "x".join(str(n) for n in (arch.get("pi", []) if isinstance(arch, dict) else arch))


def settings(spec) -> str:
    """The spec's learner settings in a few words: PPO's rollout, batch and epochs, or SAC's batch and update ratio;
    with the networks."""
    hyper, nets = spec.train.hyperparams, net_size(spec.train.policy_kwargs)
    if spec.train.algo == "PPO":
        rollout = f"{spec.train.n_envs} envs x {hyper.get('n_steps')}, {hyper.get('n_epochs')} epochs"
    else:
        rollout = f"{hyper.get('gradient_steps', 1)} update per {hyper.get('train_freq', 1)} step(s)"
    return f"{rollout}, batch {hyper.get('batch_size')}, nets {nets}"


def wall_step_rate(spec, steps: int) -> float:
    """The bare env's steps/s in wall-clock time (the yardstick of the wall-clock rows on a shared machine)."""
    global clock
    saved, clock = clock, time.perf_counter
    try:
        return step_rate(spec, None, None, steps)
    finally:
        clock = saved


def backend_table(tasks: list[str], steps: int, raw_steps: int, bare_steps: int) -> None:
    """Issue 24's table: raw physics, bare SB3 (old and spec settings) and `rewardsmith train` per backend."""
    import os
    import sys
    import tomllib

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from equal_learning import OLD, OLD_NETS

    from rewardsmith.workers.backends import BACKENDS

    def load() -> str:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())

    print(f"{os.uname().nodename}: {os.cpu_count()} cores, load average {load()}; torch threads 1; {steps} steps")
    print(f"{'task':16} {'setup':76} {'steps/s':>8} {'share of raw':>12}   (share: of the raw rate in the same clock)")
    shares: dict[str, tuple[float, float]] = {}
    for task in tasks:
        spec = load_task(task)
        example = f"{task.replace('-', '_')}.py"
        reward_fn = reward_for(example)
        raw, alone = reward_alone(spec, reward_fn, raw_steps)
        old = OLD.get(task, {"n_envs": 1, "hyperparams": {}})
        old_nets = tomllib.loads(f"nets = {OLD_NETS[task]}")["nets"] if task in OLD_NETS else spec.train.policy_kwargs
        n_envs, algo = spec.train.n_envs, spec.train.algo
        old_label = "the old settings (equal_learning.OLD)" if task in OLD else "1 env, the spec's hyperparameters"
        rows = [
            ("raw env, random actions (CPU time)", raw, raw),
            ("the reward file alone: raw env + ApplyReward, example reward (CPU time)", alone, raw),
            (
                f"bare SB3 {algo}, {old_label}, nets {net_size(old_nets)} (CPU time)",
                train_rate(
                    spec,
                    reward_fn,
                    "candidate",
                    steps,
                    old.get("n_envs", n_envs),
                    overrides=old.get("hyperparams"),
                    policy_kwargs=spec.train.model_copy(update={"policy_kwargs": old_nets}).sb3_policy_kwargs(),
                ),
                raw,
            ),
            (
                f"bare SB3 {algo}, spec: {settings(spec)} (CPU time)",
                train_rate(spec, reward_fn, "candidate", bare_steps, n_envs),
                raw,
            ),
        ]
        raw_wall = wall_step_rate(spec, raw_steps)
        for backend in BACKENDS:
            if backend != spec.train.backend:
                continue  # `rewardsmith train` runs the spec's backend
            wall, cpu, command_cpu = cli_train(task, example, steps)
            print(
                f"{task:16} rewardsmith train, {backend}: {wall:.1f} s wall; CPU: the CLI and its 2 workers "
                f"{command_cpu:.1f} s, the 2 workers {cpu:.1f} s",
                flush=True,
            )
            rows.append((f"rewardsmith train, {backend}: its 2 workers' CPU time", steps / cpu, raw))
            rows.append(
                (f"rewardsmith train, {backend}: the CLI and its 2 workers (CPU time)", steps / command_cpu, raw)
            )
            rows.append((f"rewardsmith train, {backend}: the whole command (wall clock)", steps / wall, raw_wall))
            shares[task] = (steps / wall / raw_wall, steps / command_cpu / raw)
        rows.append(("raw env, random actions (wall clock)", raw_wall, raw_wall))
        for label, rate, yardstick in rows:
            print(f"{task:16} {label:76} {rate:8.0f} {rate / yardstick:12.2f}", flush=True)
    for task, (wall_share, cpu_share) in shares.items():
        verdict = "met" if wall_share >= 0.6 else "NOT met"
        print(
            f"goal >= 0.6 of the raw rate for `rewardsmith train` on {task}: wall clock {wall_share:.2f}, {verdict}"
            f" (in CPU time {cpu_share:.2f})"
        )
    print(f"load average at the end {load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--families", nargs="*", default=list(FAMILIES), choices=list(FAMILIES))
    parser.add_argument("--raw-steps", type=int, default=2000)
    parser.add_argument("--train-steps", type=int, default=2048)
    parser.add_argument("--bare-steps", type=int, default=None, help="--backends: bare PPO's steps (default: train's)")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--vec", action="store_true", help="also PPO with 4 envs: DummyVecEnv vs SubprocVecEnv")
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of this process's CPU time")
    parser.add_argument("--backends", nargs="*", default=None, help="issue 24's table for these tasks instead")
    args = parser.parse_args()
    if args.backends:
        torch.set_num_threads(1)
        backend_table(args.backends, args.train_steps, args.raw_steps, args.bare_steps or args.train_steps)
        return
    if args.wall:
        global clock
        clock = time.perf_counter
    torch.set_num_threads(1)
    rates_header = (
        f"{'family':11} {'task':27} {'algo':4} {'raw':>7} {'native':>7} {'file':>7} "
        f"{'train native':>12} {'train file':>10} {'overhead':>8}"
    )
    costs_header = (
        f"{'family':11} {'env step':>9} {'+State':>7} {'+reward call':>12} {'own work':>9} "
        f"{'train step':>10} {'call/train':>10}"
    )
    rates, costs = [], []
    for family in args.families:
        name, example = FAMILIES[family]
        spec = load_task(name)
        reward_fn = reward_for(example)
        best: dict[str, float] = {}
        timed = TimedReward(reward_fn)
        for _ in range(args.reps):  # alternate the variants, so that a change of load hits them alike
            measured = {
                "raw": step_rate(spec, None, None, args.raw_steps),
                "native": step_rate(spec, None, "native", args.raw_steps),
                "file": step_rate(spec, timed, "candidate", args.raw_steps),
                "train native": train_rate(spec, None, "native", args.train_steps),
                "train file": train_rate(spec, reward_fn, "candidate", args.train_steps),
            }
            best = {k: max(v, best.get(k, 0.0)) for k, v in measured.items()}
        overhead = 100.0 * (best["train native"] / best["train file"] - 1.0)
        rates.append(
            f"{family:11} {name:27} {spec.train.algo:4} {best['raw']:7.0f} {best['native']:7.0f} {best['file']:7.0f} "
            f"{best['train native']:12.0f} {best['train file']:10.0f} {overhead:7.1f}%   ({example})"
        )
        env_us, state_us = 1e6 / best["raw"], 1e6 / best["native"] - 1e6 / best["raw"]
        call_us, own_us = timed.seconds / timed.calls * 1e6, timed.warm_us()
        train_us = 1e6 / best["train native"]
        costs.append(
            f"{family:11} {env_us:9.1f} {state_us:7.1f} {call_us:12.1f} {own_us:9.1f} {train_us:10.1f} "
            f"{100.0 * call_us / train_us:9.1f}%"
        )
        print(rates[-1], flush=True)
        if args.vec and spec.train.algo == "PPO":
            for vec in ("dummy", "subproc"):
                rate = train_rate(spec, reward_fn, "candidate", args.train_steps * 2, n_envs=4, vec=vec)
                print(f"{'':11} {name:27} PPO n_envs=4 {vec:8} {rate:7.0f} steps/s")
    print()
    print(
        rates_header
        + f"   (env steps per {'wall' if args.wall else 'CPU'}-second, best of {args.reps}; reward file: the family's example)"
    )
    print("\n".join(rates))
    print()
    print(costs_header + "   (us per step; own work: the reward's code alone, its State reads done)")
    print("\n".join(costs))
    print(f"(torch threads 1; {Path.cwd()})")


if __name__ == "__main__":
    main()
