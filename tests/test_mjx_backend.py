"""The MJX backend (issue 27): the reward traced and exported inside the sandbox, untraceable rewards as a clear
finding, the backend's choice, and a short end-to-end training scored by the trusted CPU evaluation."""

from __future__ import annotations

import importlib.util
import json
import tempfile
from pathlib import Path

import numpy as np
import pytest

from rewardsmith.config import RunConfig
from rewardsmith.sandbox.launch import WorkerResult
from rewardsmith.search.training import backend_fallback
from rewardsmith.task import ENVS_DIR, load_task
from rewardsmith.workers.backends import resolve_backend
from rewardsmith.workers.run import JobResult, classify

EXAMPLES = ENVS_DIR / "examples"
BRANCHY = """
def compute_reward(state, action, next_state):
    if next_state.obs[0] > 0:
        return 1.0, {"a": 1.0}
    return 0.0, {"a": 0.0}
"""
ESCAPE = """
import numpy as np


def compute_reward(state, action, next_state):
    try:
        open("/etc/passwd").read()  # the gate refuses `open` before tracing; the OS layers hold behind it
    except Exception:
        pass
    return np.float32(1.0), {"alive": 1.0}
"""


def test_the_run_records_the_backend_and_tells_every_job():
    assert RunConfig(task="hopper-hop", model="scripted:x.jsonl", backend="mjx").job_options()["backend"] == "mjx"
    assert "backend" not in RunConfig(task="hopper-hop", model="scripted:x.jsonl").job_options()


def test_auto_without_a_gpu_keeps_the_specs_backend():
    spec = load_task("inverted-double-pendulum-balance")
    assert resolve_backend("auto", spec) == "sb3"  # this machine has no GPU
    assert resolve_backend(None, spec) == spec.train.backend
    assert resolve_backend("mjx", spec) == "mjx"
    assert resolve_backend("auto", load_task("ant-run")) == "sb3"


def test_auto_trains_on_the_gpu_only_jobs_long_enough_for_it_to_win_and_to_learn(monkeypatch):
    """On an H200, 200,000 hopper-hop steps took longer on MJX than on one CPU worker; on an H100, 2.2 million
    steps on the GPU's 2,048 envs made 34 PPO updates and learned less than SB3's 390 in 200,000 (docs/mjx.md)."""
    from rewardsmith.workers import backends

    monkeypatch.setattr(backends, "gpu_visible", lambda: True)
    spec = load_task("hopper-hop")
    assert resolve_backend("auto", spec, timesteps=200_000) == "sb3"
    # fast enough from 2.1 million steps, but 34 updates there taught it to stand: it waits for 390 (the spec's)
    assert backends.gpu_min_steps(spec) == backends.GPU_BATCH * (200_000 // (8 * 64)) == 25_559_040
    assert resolve_backend("auto", spec, timesteps=2_200_000) == "sb3"
    assert resolve_backend("auto", spec, timesteps=backends.gpu_min_steps(spec) - 1) == "sb3"
    assert resolve_backend("auto", spec, timesteps=backends.gpu_min_steps(spec)) == "mjx"
    reacher = load_task("reacher-reach")  # 48 updates at its search budget: 32 x 2,048-env updates is not enough
    assert backends.gpu_min_steps(reacher) == backends.GPU_BATCH * 48 > backends.GPU_MIN_STEPS
    assert resolve_backend("auto", spec) == "mjx"  # the critic's question: may any of this run's jobs use it?
    assert resolve_backend("mjx", spec, timesteps=10_000) == "mjx"  # asked for by name, it is used
    assert resolve_backend("auto", spec, reward_source="human", timesteps=5_000_000) == "sb3"
    from rewardsmith.workers.backends.mjx import DEFAULT_ENVS, envs_for

    unroll = 32  # brax_ppo.Settings.unroll; GPU_MIN_STEPS is the smallest budget given the GPU's whole batch
    assert envs_for("gpu", backends.GPU_MIN_STEPS, unroll) == DEFAULT_ENVS["gpu"]
    assert envs_for("gpu", backends.GPU_MIN_STEPS - 1, unroll) < DEFAULT_ENVS["gpu"]


def test_under_auto_the_critic_hears_the_runs_longest_training():
    """So it traces a reward for MJX (and warns the designer when one does not trace) only when some training of
    the run may use MJX: a 200,000-step search with a 3,000,000-step final retraining may; without one, it may not."""
    base = RunConfig(task="hopper-hop", model="scripted:x.jsonl", backend="auto")
    spec = load_task("hopper-hop")
    assert "longest_training" not in base.job_options()  # budgets not resolved yet: unknown, so traced
    resolved = base.model_copy(update={"final_timesteps": 3_000_000}).resolve(spec)
    assert resolved.job_options()["longest_training"] == 3_000_000
    no_final = base.model_copy(update={"final_timesteps": 3_000_000, "final_seeds": 0}).resolve(spec)
    assert no_final.job_options()["longest_training"] == spec.train.timesteps
    assert "longest_training" not in RunConfig(task="hopper-hop", model="scripted:x.jsonl", backend="mjx").resolve(
        spec
    ).job_options()


def test_small_budgets_train_on_fewer_mjx_envs_so_ppo_still_updates_often():
    """Each PPO update is one 32-step unroll of every env: 200,000 steps on a GPU's 2,048 envs would be 4 updates,
    which left the pendulum unbalanced where 7 balanced it (docs/mjx.md)."""
    from rewardsmith.workers.backends.mjx import MIN_UPDATES, envs_for

    assert envs_for("gpu", 20_000_000, 32) == 2048
    assert envs_for("gpu", 200_000, 32) == 128  # 48 updates; 256 envs would be 24
    assert envs_for("cpu", 200_000, 32) == 64  # the CPU default, 97 updates
    assert envs_for("cpu", 50_000, 32) == 32  # a first rung: 48 updates
    assert envs_for("cpu", 1_000, 32) == 4  # no fewer, even if that means fewer updates
    for budget in (6_250, 50_000, 200_000, 1_000_000, 20_000_000):
        n = envs_for("gpu", budget, 32)
        enough = budget // (n * 32) >= MIN_UPDATES
        assert (enough or n == 4) and (n == 2048 or budget // (2 * n * 32) < MIN_UPDATES)


def test_workers_split_the_gpu_memory():
    from rewardsmith.workers.backends.mjx import gpu_memory_fraction

    assert gpu_memory_fraction(1) == "0.750"  # JAX's own default
    assert gpu_memory_fraction(2) == "0.450" and gpu_memory_fraction(8) == "0.113"
    assert 4 * float(gpu_memory_fraction(4)) <= 0.9


def test_xla_failures_are_the_machines_not_the_rewards():
    from rewardsmith.errors import BackendFailed
    from rewardsmith.workers.backends.mjx import machine_failures

    class JaxRuntimeError(RuntimeError):  # JAX's class of that name (jax.errors), raised by XLA
        pass

    expected = "failed on this machine: JaxRuntimeError: INTERNAL: Failed to launch"
    with pytest.raises(BackendFailed, match=expected), machine_failures():
        raise JaxRuntimeError("INTERNAL: Failed to launch ptxas")
    with pytest.raises(ZeroDivisionError), machine_failures():  # anything else stays what it was
        raise ZeroDivisionError


def test_the_workers_word_untraceable_reaches_the_parent(tmp_path):
    (tmp_path / "error.json").write_text(json.dumps({"kind": "untraceable", "message": "branches on a value"}))
    ended = WorkerResult(3, None, False, False, 1.0, "", "")
    result = classify(tmp_path, ended)
    assert (result.status, result.error_kind, result.error) == ("rejected", "untraceable", "branches on a value")


def test_only_an_untraceable_reward_off_the_cpu_backend_falls_back_to_it(tmp_path):
    untraceable = JobResult("rejected", tmp_path, error="branches on a value", wall_s=2.5, error_kind="untraceable")
    assert backend_fallback(untraceable, {"backend": "mjx"}) == {
        "from": "mjx",
        "to": "sb3",
        "why": "branches on a value",
        "wall_s": 2.5,
    }
    assert backend_fallback(untraceable, {})["from"] == "the spec's backend"  # a spec whose [train] backend is mjx
    assert backend_fallback(untraceable, {"backend": "sb3"}) is None  # already there: nothing to fall back to
    failed = JobResult("failed", tmp_path, error="the MJX backend failed on this machine: ...", error_kind="backend")
    assert backend_fallback(failed, {"backend": "auto"})["to"] == "sb3"  # XLA failed here (no GPU compiler): CPU
    other = JobResult("rejected", tmp_path, error="NameError", error_kind="reward")
    assert backend_fallback(other, {"backend": "mjx"}) is None  # a broken reward stays rejected
    assert backend_fallback(JobResult("ok", tmp_path), {"backend": "mjx"}) is None


needs_jax = pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="the MJX backend needs the `mjx` extra (jax, mujoco-mjx)"
)


@pytest.fixture(scope="module")
def idp():
    pytest.importorskip("jax", reason="the MJX backend needs the `mjx` extra (jax, mujoco-mjx)")
    from rewardsmith.sandbox.policy import prepare_gate
    from rewardsmith.workers.mjx.envs import MjxEnv

    prepare_gate()
    return MjxEnv("InvertedDoublePendulum-v5")


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_the_exported_reward_matches_the_numpy_reward_on_the_cpu_env(idp):
    import gymnasium as gym

    from rewardsmith.reward.state import schema_for, snapshot
    from rewardsmith.sandbox.policy import load_reward
    from rewardsmith.workers.mjx.reward_export import export_reward, load_reward_artifact

    fn = load_reward((EXAMPLES / "inverted_double_pendulum_balance.py").read_text())
    artifact = export_reward(fn, idp)
    call = load_reward_artifact(artifact.blob)  # only bytes: no Python of the candidate in it
    env = gym.make("InvertedDoublePendulum-v5")
    obs, _ = env.reset(seed=1)
    schema, data = schema_for(env), env.unwrapped.data
    before, qpos, qvel = snapshot(env, obs, schema), data.qpos.copy(), data.qvel.copy()
    action = np.array([0.3])
    obs1, *_ = env.step(action)
    want_total, want = fn(before, action, snapshot(env, obs1, schema))

    def batch(x):
        return np.asarray(x, np.float32)[None]

    total, comps = call(*map(batch, (obs, qpos, qvel, action, obs1, data.qpos, data.qvel)))
    assert artifact.components == list(want)
    assert float(total[0]) == pytest.approx(want_total, abs=1e-4)
    np.testing.assert_allclose(np.asarray(comps[0]), list(want.values()), atol=1e-4)


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_a_reward_that_branches_on_values_is_a_repairable_finding(idp):
    from rewardsmith.sandbox.policy import load_reward
    from rewardsmith.workers.mjx.jax_state import Untraceable
    from rewardsmith.workers.mjx.reward_export import export_reward

    with pytest.raises(Untraceable, match="np.where.*--backend sb3"):
        export_reward(load_reward(BRANCHY), idp)


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_the_critic_traces_the_reward_when_the_run_trains_on_mjx(tmp_path):
    from rewardsmith.stages.critic import critique
    from rewardsmith.workers.executor import LocalExecutor

    spec = load_task("inverted-double-pendulum-balance")
    branchy = tmp_path / "branchy.py"
    branchy.write_text(BRANCHY)
    example = EXAMPLES / "inverted_double_pendulum_balance.py"
    executor = LocalExecutor(1)
    try:

        def check(reward, name, **options):
            return critique(
                spec, reward, tmp_path / name, model=None, executor=executor, env_description=None, options=options
            )

        found = check(branchy, "branchy", backend="mjx")
        traced = check(example, "example", backend="mjx")
        on_cpu = check(branchy, "cpu")
    finally:
        executor.shutdown()
    assert found.accepted  # it runs on numpy: the CPU backend trains it
    (warning,) = [f for f in found.warnings if f.code == "untraceable"]
    assert "np.where" in warning.message and "CPU backend (sb3)" in warning.message
    assert found.stats["dynamic"]["jax_trace"]["traced"] is False
    assert traced.accepted and not [f for f in traced.findings if f.code == "untraceable"]
    assert traced.stats["dynamic"]["jax_trace"]["traced"] is True
    assert "jax_trace" not in on_cpu.stats["dynamic"] and on_cpu.accepted and not on_cpu.findings  # no JAX at all


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_a_reward_that_picks_numbers_with_if_expressions_traces_after_its_rewrite(tmp_path):
    """hopper-hop's example (`x if healthy else 0.0`, `healthy = a >= 0.7 and b <= 0.2`) does not trace as written;
    its rewrite keeps its values on the critic's states and traces, so no warning and no fallback."""
    from rewardsmith.stages.critic import critique
    from rewardsmith.workers.executor import LocalExecutor

    executor = LocalExecutor(1)
    try:
        report = critique(
            load_task("hopper-hop"),
            EXAMPLES / "hopper_hop.py",
            tmp_path,
            model=None,
            executor=executor,
            env_description=None,
            options={"backend": "mjx"},
        )
    finally:
        executor.shutdown()
    assert report.accepted and not report.findings
    assert report.stats["dynamic"]["jax_trace"] | {"seconds": 0} == {"traced": True, "rewritten": True, "seconds": 0}


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_an_untraceable_reward_trains_on_the_cpu_backend_instead(cli, tmp_path):
    reward, out = tmp_path / "branchy.py", tmp_path / "out"
    reward.write_text(BRANCHY)
    code, stdout, stderr = cli(
        "train", "inverted-double-pendulum-balance", reward, "--backend", "mjx", "--timesteps", "256", "--out", out
    )
    assert code == 0, stderr
    assert "trained on sb3 instead of mjx: the reward branches on a value" in " ".join(stdout.split())
    assert json.loads((out / "summary.json").read_text())["backend"] == "sb3"
    assert (out / "eval" / "evaluation.json").is_file()  # scored by the trusted evaluation, as any training


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_a_run_on_mjx_trains_an_untraceable_candidate_on_the_cpu_backend_and_records_it(
    tiny_spec, tmp_path, monkeypatch
):
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.search.loop import run as run_search

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    spec = tiny_spec("inverted-double-pendulum-balance", timesteps=512)
    script = tmp_path / "designer.jsonl"
    script.write_text(json.dumps({"role": "designer", "content": f"```python\n{BRANCHY.strip()}\n```\n"}) + "\n")
    out = tmp_path / "run"
    config = RunConfig(
        task=str(spec),
        model=f"scripted:{script}",
        iterations=1,
        samples=1,
        backend="mjx",
        workers=1,
        final_seeds=0,
        out=out,
    )
    run_search(config)
    critic = json.loads((out / "iter_1" / "cand_1" / "critic.json").read_text())
    assert [f["code"] for f in critic["findings"]] == ["untraceable"] and critic["accepted"]
    (done,) = [e for e in RunFolder(out).events() if e["event"] == "training_done"]
    assert done["status"] == "trained" and done["fitness"] is not None
    assert done["backend_fallback"]["from"] == "mjx" and done["backend_fallback"]["to"] == "sb3"
    assert "branches on a value" in done["backend_fallback"]["why"]
    assert json.loads((out / "iter_1" / "cand_1" / "summary.json").read_text())["backend"] == "sb3"


@needs_jax
@pytest.mark.mjx
def test_brax_minibatches_hold_the_specs_batch_size_so_gradient_steps_per_env_step_match_sb3():
    """The spec's SB3 `batch_size` sets Brax's minibatch (whole unrolls): IDP's 128 transitions are 4 unrolls of
    32, so 64 envs give 16 minibatches per update and, over 10 epochs, 160 gradient steps per 2,048 env steps, as
    SB3 takes (40 per 512). A batch below one unroll is one unroll; without a batch size, 4 minibatches."""
    from rewardsmith.workers.mjx.brax_ppo import PPOSettings, minibatch_segments

    idp = PPOSettings.from_hyperparams(load_task("inverted-double-pendulum-balance").train.hyperparams)
    assert (idp.batch, idp.unroll, idp.epochs) == (128, 32, 10)
    assert minibatch_segments(idp, 64) == 4 and 64 // minibatch_segments(idp, 64) * idp.epochs == 160
    assert minibatch_segments(idp, 2048) == 4  # 512 minibatches of 128 transitions on a GPU
    assert minibatch_segments(PPOSettings(batch=16), 64) == 1
    assert minibatch_segments(PPOSettings(), 64) == 16  # 4 minibatches
    assert minibatch_segments(PPOSettings(batch=96), 64) == 2  # 3 unrolls do not split 64 envs evenly


@needs_jax
@pytest.mark.mjx
def test_brax_trains_the_budget_with_less_than_one_reports_updates_over():
    """Brax trains `reports` epochs of ceil(T / (reports x update)) updates each (`ppo.train`'s own formula); the
    report count keeps that at or above T and under one report's worth of updates over it."""
    import math

    from rewardsmith.workers.mjx.brax_ppo import report_count

    for timesteps in (256, 6_250, 50_000, 200_000, 1_000_000):
        for per_update in (256, 2_048, 4_096, 8_192, 65_536):
            reports = report_count(timesteps, per_update)
            updates = max(2, math.ceil(timesteps / per_update))
            trained = reports * math.ceil(timesteps / (reports * per_update)) * per_update
            assert 2 <= reports <= 20 and trained >= timesteps
            assert trained / per_update - updates < math.ceil(updates / 20), (timesteps, per_update, trained)
    assert report_count(200_000, 4_096) == 17  # 51 updates of 128 envs (a fixed 20 reports trained 60)


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_brax_parameters_become_the_sb3_policy_the_evaluation_worker_loads():
    """Brax's networks, renamed to SB3's tensors, give the same action mean, std and value as Brax's own apply."""
    import jax
    import jax.numpy as jnp
    import torch

    from rewardsmith.task import make_env
    from rewardsmith.workers.backends.mjx import weights_bytes
    from rewardsmith.workers.evaluate import build_policy, load_weights
    from rewardsmith.workers.mjx import brax_ppo

    spec = load_task("hopper-hop")  # two hidden layers of its own sizes; tanh, as SB3's MlpPolicy
    env = make_env(spec)
    policy = build_policy(spec, env.observation_space, env.action_space)
    shapes = {k: v.detach().numpy() for k, v in policy.state_dict().items()}
    n_obs, n_act = env.observation_space.shape[0], env.action_space.shape[0]
    networks = brax_ppo.network_factory(
        brax_ppo.hidden_sizes(shapes, "policy_net"), brax_ppo.hidden_sizes(shapes, "value_net"), jnp.tanh, -0.5
    )(n_obs, n_act)
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(3), 3)
    normaliser = brax_ppo.running_statistics.init_state(jax.ShapeDtypeStruct((n_obs,), jnp.float32))
    params = (normaliser, networks.policy_network.init(k1), networks.value_network.init(k2))
    state_dict = brax_ppo.sb3_state_dict(params)
    assert set(state_dict) == set(shapes) and all(state_dict[k].shape == shapes[k].shape for k in shapes)
    weights = Path(tempfile.mkdtemp()) / "policy.safetensors"
    weights.write_bytes(weights_bytes(state_dict))
    load_weights(policy, weights)  # strictly, as the evaluation worker does
    obs = jax.random.normal(k3, (5, n_obs))
    mean, std = networks.policy_network.apply(params[0], params[1], obs)
    value = networks.value_network.apply(params[0], params[2], obs)
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(np.array(obs)))
        np.testing.assert_allclose(dist.distribution.mean.numpy(), np.asarray(mean), atol=1e-5)
        np.testing.assert_allclose(dist.distribution.stddev.numpy(), np.asarray(std), atol=1e-6)
        np.testing.assert_allclose(
            policy.predict_values(torch.as_tensor(np.array(obs)))[:, 0].numpy(), np.asarray(value), atol=1e-5
        )
    back = brax_ppo.brax_params(state_dict, n_obs)
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(lambda a, b: bool(jnp.all(a == b)), back[1:], params[1:]))


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_a_resumed_training_starts_from_the_checkpoint(idp):
    """With a learning rate of 0, Brax's PPO restored from SB3 weights hands the same weights back."""
    import jax
    import jax.numpy as jnp

    from rewardsmith.workers.mjx import brax_ppo

    factory = brax_ppo.network_factory([16], [16], jnp.tanh, 0.0)
    networks = factory(idp.obs_size, idp.action_size)
    k1, k2 = jax.random.split(jax.random.PRNGKey(7))
    normaliser = brax_ppo.running_statistics.init_state(jax.ShapeDtypeStruct((idp.obs_size,), jnp.float32))
    start = brax_ppo.sb3_state_dict((normaliser, networks.policy_network.init(k1), networks.value_network.init(k2)))

    def reward_call(obs, *_):
        return jnp.ones(obs.shape[0]), jnp.ones((obs.shape[0], 1))

    settings = brax_ppo.PPOSettings(learning_rate=0.0, unroll=8)
    params, steps = brax_ppo.train(
        idp,
        reward_call,
        1,
        settings,
        timesteps=256,
        n_envs=8,
        seed=0,
        factory=factory,
        restore=brax_ppo.brax_params(start, idp.obs_size),
        progress=lambda *_: None,
    )
    assert steps >= 256
    end = brax_ppo.sb3_state_dict(params)
    assert all(np.array_equal(end[k], start[k]) for k in start)


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_hostile_reward_is_contained_and_only_the_artifact_trains(cli, tmp_path):
    """The escape attempt is refused by the gate before anything is traced; the job fails with the finding."""
    reward = tmp_path / "reward.py"
    reward.write_text(ESCAPE)
    code, _, stderr = cli("train", "inverted-double-pendulum-balance", reward, "--backend", "mjx", "--timesteps", "64")
    assert code != 0 and "open" in stderr


@needs_jax
@pytest.mark.mjx
@pytest.mark.slow
def test_mjx_training_beats_the_random_policy_on_the_cpu_env(cli, tmp_path):
    out = tmp_path / "out"
    args = ("train", "inverted-double-pendulum-balance", EXAMPLES / "inverted_double_pendulum_balance.py")
    code, stdout, stderr = cli(*args, "--backend", "mjx", "--timesteps", "200000", "--out", out)
    assert code == 0, stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["backend"] == "mjx" and summary["reward_artifact_bytes"] > 0
    evaluation = json.loads((out / "eval" / "evaluation.json").read_text())
    lengths = evaluation["lengths"]  # the trusted CPU env's episodes; random actions keep it up ~6-10 steps
    # measured at 200k steps, 64 envs: 1,000 on all 3 episodes of seeds 0, 1 and 2 (docs/mjx.md); 31-141 when Brax
    # took a quarter of SB3's gradient steps per env step (4 minibatches per update)
    assert sum(lengths) / len(lengths) > 500
