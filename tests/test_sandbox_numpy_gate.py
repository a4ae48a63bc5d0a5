"""The gate passes honest numpy (method forms, linalg, the LLM-shaped replies in tests/data) and closes the
native-pointer, flags and process-state holes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rewardsmith.sandbox.policy import check_source, load_reward
from rewardsmith.stages.critic import critique
from rewardsmith.stages.extract import extract_reward_code
from rewardsmith.task import read_task
from rewardsmith.workers.executor import LocalExecutor

EXECUTOR = LocalExecutor(workers=2)
"""The worker pool of this module's stage calls (a stage takes its executor explicitly)."""
DATA = Path(__file__).parent / "data"
HONEST_EXTRACTS = sorted(
    p for p in DATA.glob("extract_*")
    if p.stem.split("_")[1] not in {"03", "06", "14", "16", "17"}  # the fixtures that hold no valid reward
)
METHODS = """\
import numpy as np
from numpy.linalg import norm


def compute_reward(state, action, next_state):
    a = np.asarray(action, dtype=np.float64)
    obs = next_state.obs
    terms = {
        "sum": a.sum(), "mean": obs.mean(), "max": obs.max(), "min": obs.min(), "dot": a.dot(a),
        "clip": a.clip(-1.0, 1.0).sum(), "astype": obs.astype(np.float32).sum(), "reshape": obs.reshape(-1, 1).sum(),
        "copy": obs.copy().sum(), "norm": np.linalg.norm(next_state.qvel), "norm2": norm(a), "std": obs.std(),
        "var": obs.var(), "prod": a.prod(), "argmax": obs.argmax(), "cumsum": a.cumsum()[-1], "any": obs.any(),
        "all": np.isfinite(obs).all(), "round": obs.round(3).sum(), "ravel": obs.ravel()[0], "abs": np.abs(a).sum(),
        "square": np.square(a).sum(), "tanh": np.tanh(obs).mean(), "exp": np.exp(-np.square(obs).sum()),
        "ptp": np.ptp(obs), "median": np.median(obs), "percentile": np.percentile(obs, 90), "trace": np.eye(2).trace(),
        "matmul": float(a @ a), "tolist": sum(a.tolist()), "item": obs[:1].item(), "where": np.where(obs > 0, 1, 0).sum(),
        "sqrt": np.sqrt(np.abs(obs)).sum(), "text": len(str(obs.round(2))), "fstring": len(f"{a.sum():.3f}"),
        "div": np.nan_to_num(np.float64(1.0) / (obs[0] - obs[0] + 1.0)),
    }
    terms = {k: float(v) for k, v in terms.items()}
    return 0.001 * sum(terms.values()) - 0.001 * np.square(action).sum(), {"ctrl": -0.001 * float(np.square(action).sum())}
"""


def test_method_forms_pass_the_gate_and_run_in_process() -> None:
    assert check_source(METHODS) == []
    state = type("S", (), {"obs": np.linspace(-1, 1, 11), "qvel": np.ones(3)})()
    reward, parts = load_reward(METHODS, gate=True)(state, np.full(3, 0.5), state)
    assert np.isfinite(reward) and parts["ctrl"] == pytest.approx(-0.00075)


def test_method_forms_pass_the_critic_on_real_states_gate_on(tmp_path: Path, tiny_spec) -> None:
    """The real path: a sandboxed smoke worker (gate on, locked down) on a real MuJoCo env."""
    spec = read_task(tiny_spec("hopper-hop"))
    path = tmp_path / "reward.py"
    path.write_text(METHODS)
    report = critique(spec, path, tmp_path / "out", timeout_s=60,
                      options={"transitions": 30, "episode_steps": 30}, model=None, executor=EXECUTOR, env_description=None)
    assert report.accepted, [str(f) for f in report.errors]


def _results(code: str, gate: bool):
    fn = load_reward(code, gate=gate)
    rng = np.random.default_rng(1)
    return [fn(rng.normal(size=11), rng.uniform(-1, 1, size=3), rng.normal(size=11)) for _ in range(5)]


def test_false_rejection_rate_on_llm_replies_is_zero() -> None:
    """Every reply in tests/data that holds a valid reward passes the gate and computes, gate on, exactly what
    it computes with plain Python (the gate-off path)."""
    rejected = []
    for fixture in HONEST_EXTRACTS:
        code = extract_reward_code(fixture.read_text(encoding="utf-8"))
        findings = check_source(code)
        if findings:
            rejected.append((fixture.name, [str(f) for f in findings]))
            continue
        try:
            assert _results(code, gate=True) == _results(code, gate=False)
        except Exception as e:  # noqa: BLE001 - any failure gate-on counts as a false rejection
            rejected.append((fixture.name, f"{type(e).__name__}: {e}"))
    assert len(HONEST_EXTRACTS) >= 14
    assert rejected == [], f"false-rejection rate {len(rejected)}/{len(HONEST_EXTRACTS)}: {rejected}"


@pytest.mark.parametrize("snippet", [
    "x = np.random.default_rng(0).bit_generator",
    "x = np.random.PCG64(0).cffi",
    "x = np.random.PCG64(0).ctypes",
    "x = np.random.PCG64(0).capsule",
    "x = np.zeros(3).data",
    "x = np.zeros(3).ctypes.data",
    "x = np.zeros(3).__array_interface__",
    "x = np.zeros(3).__array_struct__",
    "import ctypes",
    "import cffi",
    "x = np.zeros(3).flags",
    "np.zeros(3).flags['WRITEABLE'] = True",
    "f = np.zeros(3).flags\nf['WRITEABLE'] = True",
    "np.zeros(3).flags.writeable = True",
    "np.zeros(3).setflags(write=True)",
    "np.seterr(all='ignore')",
    "np.seterrcall(None)",
    "from numpy import seterr",
    "x = np.seterrobj",
])
def test_native_pointer_flags_and_process_state_holes_are_closed(snippet: str) -> None:
    source = "import numpy as np\n" + snippet + "\ndef compute_reward(s, a, n):\n    return 0.0, {}\n"
    assert check_source(source), snippet


def test_numpy_internal_imports_stay_closed_to_reward_code() -> None:
    """The importer hands numpy its already-loaded internals only; anything else still raises."""
    builtins = load_reward("def compute_reward(s, a, n):\n    return 0.0, {}\n").__globals__["__builtins__"]
    importer = builtins["__import__"]
    assert importer("numpy._core._methods").__name__ == "numpy"  # the restricted view, not the real module
    for name in ("ctypes", "os", "numpy.ctypeslib_not_loaded_yet", "numpy_evil"):
        with pytest.raises(ImportError):
            importer(name)
