"""The gate passes honest numpy (method forms, linalg, the LLM-shaped replies in tests/data) and closes the
native-pointer, flags, process-state and raw-memory holes (every way to build an array view over memory the code
does not own is refused statically, with a finding that says what to use instead)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import write_idp_tiny_task
from typer.testing import CliRunner

from rewardsmith.cli import app
from rewardsmith.sandbox.allowlist import ALLOWED_ATTRIBUTES, DENIED_NUMPY_ATTRIBUTES, NUMPY_NAMES
from rewardsmith.sandbox.policy import check_source, load_reward
from rewardsmith.sandbox.views import numpy_view
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


MEMORY_ROUTES = {
    "ndarray-buffer": "v = np.ndarray((5,), np.float64, buffer=np.zeros(2), strides=(1 << 62,))",
    "ndarray-alias": "from numpy import ndarray as A\nv = A((5,), np.float64, np.zeros(2), 0, (1 << 62,))",
    "recarray": "v = np.recarray((5,), dtype=np.float64, buf=np.zeros(2), strides=(1 << 62,))",
    "matrix": "v = np.matrix(np.zeros((1, 1)))",
    "memmap": "v = np.memmap",
    "chararray": "v = np.chararray((2,))",
    "as_strided": "v = np.lib.stride_tricks.as_strided(np.zeros(2), (5,), (1 << 62,))",
    "sliding_window": "v = np.lib.stride_tricks.sliding_window_view(np.zeros(2), 1)",
    "frombuffer": "v = np.frombuffer(b'12345678', np.float64)",
    "from-import": "from numpy import frombuffer\nv = frombuffer(b'12345678')",
    "ctypes": "v = np.zeros(2).ctypes.data",
    "array-interface": "v = np.zeros(2).__array_interface__",
    "array-struct": "v = np.zeros(2).__array_struct__",
    "ctypeslib": "v = np.ctypeslib.as_array",
    "view": "v = np.zeros(1, np.uint8).view(np.float64)",
    "resize": "x = np.ones(1 << 20)\nd = x[:]\nx.resize(1, refcheck=False)",
    "getfield": "v = np.zeros(2).getfield(np.float64, 4096)",
    "setfield": "np.zeros(2).setfield(1.0, np.float64, 4096)",
    "structured-dtype": "v = np.zeros(2, dtype={'names': ['a'], 'formats': ['f8'], 'offsets': [4096]})",
    "structured-astype": "v = np.zeros(2).astype([('a', 'f8')])",
    "dtype": "v = np.dtype('f8')",
    "nditer": "v = np.nditer(np.zeros(2), op_flags=['readwrite'])",
    "ufunc-at": "np.add.at(np.zeros(2), [1 << 40], 1.0)",
    "strides": "v = np.zeros(2).strides",
    "flat": "np.zeros(2).flat[0] = 1.0",
    "empty": "v = np.empty(1 << 20)",
    "lib-other": "v = np.lib.npyio",
    "random-internals": "v = np.random.mtrand",
    "buffer-keyword": "f = np.zeros\nv = f(2, buffer=b'')",
}


@pytest.mark.parametrize("route", sorted(MEMORY_ROUTES))
def test_every_raw_memory_route_is_refused_by_the_gate(route: str) -> None:
    source = "import numpy as np\n" + MEMORY_ROUTES[route] + "\ndef compute_reward(s, a, n):\n    return 0.0, {}\n"
    findings = check_source(source)
    assert findings, route
    assert all(f.line and f.line >= 2 for f in findings)
    assert all(" use " in f.message or "not allowed" in f.message for f in findings), [str(f) for f in findings]


def test_the_numpy_view_is_an_allowlist() -> None:
    view = numpy_view()
    served = {n for n in dir(view) if not n.startswith("_")}
    assert served <= NUMPY_NAMES | {"linalg", "random", "typing"}
    for name in ("lib", "frombuffer", "recarray", "matrix", "memmap", "chararray", "ctypeslib", "dtype", "nditer",
                 "empty", "broadcast", "void", "record", "from_dlpack", "fromstring", "load", "save"):
        assert not hasattr(view, name), name
    assert not {"PCG64", "Generator", "mtrand", "bit_generator"} & set(dir(view.random))
    assert {"sum", "clip", "exp", "tanh", "where", "zeros", "concatenate", "float32", "pi"} <= served
    assert view.linalg.norm is np.linalg.norm and view.random.default_rng is np.random.default_rng


def test_ndarray_answers_isinstance_but_cannot_be_called() -> None:
    fn = load_reward("import numpy as np\ndef compute_reward(s, a, n):\n"
                     "    return float(isinstance(a, np.ndarray)) + float(isinstance(1.0, np.ndarray)), {}\n")
    assert fn(0, np.zeros(2), 0) == (1.0, {})
    stand_in = fn.__globals__["np"].ndarray
    assert issubclass(type(np.zeros(1)), stand_in) and stand_in[float] is stand_in
    with pytest.raises(TypeError, match="not available in reward code"):
        stand_in((5,), np.float64, np.zeros(2), 0, (1 << 62,))


def test_denied_numpy_attributes_cover_the_memory_api() -> None:
    memory = {"view", "resize", "getfield", "setfield", "strides", "ctypes", "data", "base", "flags", "flat",
              "as_strided", "sliding_window_view", "frombuffer", "at", "byteswap", "tobytes", "newbyteorder"}
    assert not memory & ALLOWED_ATTRIBUTES
    assert memory - {"ctypes", "data", "base", "flags"} <= DENIED_NUMPY_ATTRIBUTES
    honest = {"obs", "qpos", "body", "joint", "site", "pos", "linvel", "items", "get", "keys", "values", "append",
              "join", "split", "strip", "lower", "startswith", "index", "count", "names", "kind", "eps"}
    assert not honest & DENIED_NUMPY_ATTRIBUTES


@pytest.mark.parametrize("program", ["np_ndarray_strides_oob", "np_resize_dangling", "np_view_field_offsets"])
def test_check_json_refuses_memory_routes_at_the_gate(program: str, tmp_path: Path, monkeypatch) -> None:
    """Through `rewardsmith check --json`: rejected by the gate (the static stage), before any worker runs."""
    monkeypatch.chdir(tmp_path)
    task = write_idp_tiny_task(tmp_path)
    reward = Path(__file__).parent / "hostile" / f"{program}.py"
    result = CliRunner().invoke(app, ["check", str(task), str(reward), "--json"])
    assert result.exit_code == 1, result.output
    payload = json.loads(result.stdout)
    assert payload["accepted"] is False and payload["findings"]
    assert {f["stage"] for f in payload["findings"]} == {"static"}
    assert {f["code"] for f in payload["findings"]} <= {"numpy-memory", "numpy-name", "structured-dtype"}
