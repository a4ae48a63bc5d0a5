"""A candidate's numpy reward traced to JAX and exported as serialized StableHLO, with a symbolic batch dimension.

`export_reward` runs only in the locked-down training worker (after `enter_sandbox`, where the reward module
was loaded through the gate): it calls the reward once per traced batch against `JaxState`s and returns the
`jax.export` bytes. The trainer then runs `load_reward_artifact(bytes)` only: a fixed computation of arrays in,
arrays out, which can make no system calls, with no Python of the candidate's left in it.

A reward whose `a if c else b`, `and`/`or`/`not` or chained comparisons branch on values gets a second chance: its
source rewritten into `np.where` and logical operators (`workers.mjx.rewrite`), used only when it gives the same
values on real states. A reward that still cannot be traced (an `if` statement on a value, in-place updates,
`int()` of a value, the contact list) raises `Untraceable`, a RewardFileError whose text says what to change, or
to train on the CPU backend.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rewardsmith.reward.state import StateSchema
from rewardsmith.workers.mjx.jax_state import JaxState, Untraceable, traceable
from rewardsmith.workers.mjx.rewrite import same_values, traceable_source

ADVICE = (
    "to train on the GPU (MJX) backend the reward must trace to JAX: branch with np.where instead of Python "
    "`if` on values, build arrays instead of assigning into them, avoid int()/bool() of values and the "
    "contact list; or train this candidate with --backend sb3"
)


@dataclass
class RewardArtifact:
    """The exported reward: bytes for the trainer, the component names in the order of its output, and whether
    it is the branch-rewritten reward (`workers.mjx.rewrite`) rather than the source as written."""

    blob: bytes
    components: list[str]
    rewritten: bool = False


def _reward_inputs(env) -> tuple[int, int, int, int]:
    m = env.model
    return env.obs_size, int(m.nq), int(m.nv), int(m.nu)


def traced_reward(fn: Callable[..., Any], env, schema: StateSchema, names_out: list[str]):
    """(obs, qpos, qvel, action, next_obs, next_qpos, next_qvel) → (reward, components) for one env state,
    calling the candidate's `fn` on JaxStates; `names_out` receives the component names while tracing."""
    import jax.numpy as jnp
    from mujoco import mjx

    blank = env._blank

    def state_of(obs, qpos, qvel):
        d = blank.replace(qpos=qpos, qvel=qvel)
        d = mjx.com_vel(env.mx, mjx.com_pos(env.mx, mjx.kinematics(env.mx, d)))
        return JaxState(obs, d, schema, env.dt)

    def reward(obs, qpos, qvel, action, next_obs, next_qpos, next_qvel):
        result = fn(state_of(obs, qpos, qvel), action, state_of(next_obs, next_qpos, next_qvel))
        if not (isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict)):
            raise Untraceable("compute_reward must return (reward, components dict)")
        total, components = result
        names_out[:] = [str(k) for k in components]
        values = [jnp.asarray(v, jnp.float32).reshape(()) for v in components.values()]
        stacked = jnp.stack(values) if values else jnp.zeros((0,), jnp.float32)
        return jnp.asarray(total, jnp.float32).reshape(()), stacked

    return reward


def export_reward(
    fn: Callable[..., Any],
    env,
    *,
    source: str | None = None,
    load: Callable[[str], Callable[..., Any]] | None = None,
    transitions: Sequence[tuple[Any, Any, Any]] = (),
) -> RewardArtifact:
    """Trace the candidate's reward over a symbolic batch and serialize it; Untraceable names the cause.

    When `fn` does not trace and its `source` can be rewritten (`rewrite.traceable_source`), the rewritten module
    is loaded with `load` (the worker's gated loader), and exported instead if it gives the same values as `fn`
    on every one of `transitions` (real states) and traces; otherwise the first Untraceable stands."""
    try:
        return _export(fn, env)
    except Untraceable as first:
        rewritten_source = traceable_source(source) if source is not None and load is not None else None
        if rewritten_source is None or load is None:
            raise
        try:
            rewritten = load(rewritten_source)
        except Exception:  # noqa: BLE001 - the rewrite is only a second chance
            raise first from None
        differs = same_values(fn, rewritten, transitions) if transitions else "no real states to compare them on"
        if differs is not None:
            raise Untraceable(
                f"{first} (rewriting its branches with np.where did not keep its values: {differs})"
            ) from None
        try:
            artifact = _export(rewritten, env)
        except Untraceable:
            raise first from None
        artifact.rewritten = True
        return artifact


def _export(fn: Callable[..., Any], env) -> RewardArtifact:
    """`fn` traced over a symbolic batch and serialized."""
    import jax
    import jax.numpy as jnp
    from jax import export

    names: list[str] = []
    schema = StateSchema(env.model)
    batched = jax.jit(jax.vmap(traced_reward(fn, env, schema, names)))
    (b,) = export.symbolic_shape("b")
    n_obs, nq, nv, nu = _reward_inputs(env)
    shapes = [(b, n_obs), (b, nq), (b, nv), (b, nu), (b, n_obs), (b, nq), (b, nv)]
    args = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]
    try:
        with traceable(getattr(fn, "__globals__", {})):
            exported = export.export(batched)(*args)
    except (Untraceable, MemoryError, RecursionError):
        raise  # the worker's own handlers name the last two
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerBoolConversionError) as e:
        raise Untraceable(f"the reward branches on a value ({_first_line(e)}); {ADVICE}") from None
    except jax.errors.TracerIntegerConversionError as e:
        raise Untraceable(f"the reward converts a value to int ({_first_line(e)}); {ADVICE}") from None
    except Exception as e:  # noqa: BLE001 - anything the candidate's code raised while traced: it does not trace
        raise Untraceable(
            f"the reward does not trace to JAX ({type(e).__name__}: {_first_line(e)}); {ADVICE}"
        ) from None
    return RewardArtifact(bytes(exported.serialize()), list(names))


def load_reward_artifact(blob: bytes):
    """The exported reward as a callable over batches (the trainer's only view of the candidate)."""
    from jax import export

    return export.deserialize(bytearray(blob)).call


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__
