"""`sandbox.minimum` / `--sandbox-minimum`: a run refuses to start when the machine offers fewer layers."""

from __future__ import annotations

from pathlib import Path

from rewardsmith import once, settings
from rewardsmith.sandbox.probe import LayerStatus, probe_layers


def test_run_refuses_to_start_without_required_layers(cli, tiny_spec, tmp_path, monkeypatch):
    real = probe_layers()  # this machine's real answer, with one required layer reported absent
    monkeypatch.setattr(settings, "_probe", lambda: {**real, "landlock": LayerStatus(False, "kernel too old")})
    out = tmp_path / "run"
    code, _, err = cli("run", tiny_spec("inverted-double-pendulum-balance"), "--model", "scripted:/dev/null",
                       "--sandbox-minimum", "clean-start,landlock", "--out", out)
    assert code == 2
    assert "lacks sandbox layers landlock" in err and "rewardsmith doctor" in err
    assert not out.exists()


def test_default_minimum_holds_on_this_machine():
    settings.require_sandbox()  # clean-start, rlimits, seccomp, ast-gate: what a stock container allows


def test_unknown_layer_name_is_a_usage_error(cli, tiny_spec, tmp_path):
    code, _, err = cli("run", tiny_spec("inverted-double-pendulum-balance"), "--sandbox-minimum", "seccomp,moat",
                       "--out", tmp_path / "run")
    assert code == 2 and "unknown sandbox layer(s) moat" in err


def test_settings_file_sets_the_minimum(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings.user_config.cache_clear()
    (tmp_path / "rewardsmith.toml").write_text('[sandbox]\nminimum = ["clean-start", "landlock"]\n')
    try:
        assert settings.sandbox_minimum() == ["clean-start", "landlock"]
        assert settings.sandbox_minimum(["seccomp"]) == ["seccomp"]
        (tmp_path / "rewardsmith.toml").write_text('[sandbox]\nminimum = ["moat"]\n')
        settings.user_config.cache_clear()
        try:
            settings.sandbox_minimum()
        except Exception as e:  # noqa: BLE001
            assert "rewardsmith.toml" in str(e) and "moat" in str(e)
        else:
            raise AssertionError("a bad settings file was accepted")
    finally:
        settings.user_config.cache_clear()


def test_uid0_worker_refused_by_default_and_allowed_loudly_with_the_opt_in(monkeypatch, capsys, tmp_path):
    from rewardsmith.errors import SandboxError
    from rewardsmith.sandbox.probe import DEFAULT_MINIMUM, LAYERS

    assert "uid-drop" in DEFAULT_MINIMUM
    kept = LayerStatus(False, "off: /root is not readable by other users ... Fix: ...")
    monkeypatch.setattr(settings, "_probe", lambda: {**{n: LayerStatus(True, "on") for n in LAYERS}, "uid-drop": kept})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    settings.user_config.cache_clear()
    try:
        monkeypatch.delenv("REWARDSMITH_ALLOW_UID0", raising=False)
        try:
            settings.require_sandbox()
        except SandboxError as e:
            assert "uid-drop" in str(e) and "doctor" in str(e)
        else:
            raise AssertionError("a worker keeping uid 0 was accepted without the opt-in")
        monkeypatch.setenv("REWARDSMITH_ALLOW_UID0", "1")
        once.forget()  # a new process
        settings.require_sandbox()
        assert "WARNING: sandboxed workers keep uid 0" in capsys.readouterr().err
        settings.require_sandbox()  # a batch checks before each task: said once
        assert "keep uid 0" not in capsys.readouterr().err
        monkeypatch.delenv("REWARDSMITH_ALLOW_UID0")
        (tmp_path / "rewardsmith.toml").write_text("[sandbox]\nallow_uid0 = true\n")
        settings.user_config.cache_clear()
        once.forget()  # a new process, opted in by its settings file
        settings.require_sandbox()
        assert "allow_uid0" in capsys.readouterr().err
    finally:
        settings.user_config.cache_clear()


def test_doctor_says_how_to_fix_a_missing_uid_drop():
    status = probe_layers()["uid-drop"]
    if status.ok:
        assert status.detail.startswith("on")
    else:  # root with Python in a private home (this CI): the detail names the folder and the fixes
        assert "Fix:" in status.detail and "allow_uid0" in status.detail and "chmod o+rx" in status.detail


def test_every_verb_that_runs_candidate_code_refuses_like_run(cli, tiny_spec, tmp_path, monkeypatch):
    """As root where workers keep uid 0 (this CI), without the opt-in: `check`, `train` and `evaluate --video` refuse
    with `run`'s own one-line message, before any folder is made or any worker runs candidate code."""
    from rewardsmith.sandbox.probe import LAYERS

    kept = LayerStatus(False, "off: kept uid 0")
    monkeypatch.setattr(settings, "_probe", lambda: {**{n: LayerStatus(True, "on") for n in LAYERS}, "uid-drop": kept})
    monkeypatch.delenv("REWARDSMITH_ALLOW_UID0", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    settings.user_config.cache_clear()
    spec = tiny_spec("inverted-double-pendulum-balance")
    reward = Path(__file__).parent.parent / "envs" / "examples" / "inverted_double_pendulum_balance.py"
    (tmp_path / "policy").mkdir()
    (tmp_path / "policy" / "policy.safetensors").write_bytes(b"never loaded")
    verbs = {
        "run": ["run", spec, "--model", "scripted:/dev/null", "--out", tmp_path / "run"],
        "check": ["check", spec, reward, "--out", tmp_path / "check"],
        "train": ["train", spec, reward, "--timesteps", "64", "--out", tmp_path / "train"],
        # a video unpickles the candidate-written model.zip in a worker
        "evaluate": ["evaluate", tmp_path / "policy", "--task", spec, "--video", "--video-out", tmp_path / "v.mp4"],
    }
    try:
        errors = {}
        for verb, args in verbs.items():
            code, out, err = cli(*args)
            assert code == 2, (verb, out, err)
            assert not (tmp_path / verb).exists() and not (tmp_path / "v.mp4").exists(), verb
            errors[verb] = " ".join(err.split())
        assert errors["run"] == errors["check"] == errors["train"] == errors["evaluate"]
        assert "lacks sandbox layers uid-drop" in errors["run"] and "rewardsmith doctor" in errors["run"]
        code, out, _ = cli("check", spec, reward, "--json")
        assert code == 2 and '"accepted": false' in out and "lacks sandbox layers uid-drop" in out
        code, out, _ = cli("check", spec, reward, "--json", "--sandbox-minimum", "clean-start")
        assert code == 0 and '"accepted": true' in out  # the same option as `run`'s lowers the minimum
    finally:
        settings.user_config.cache_clear()


def test_doctor_says_what_is_given_up_without_each_missing_layer(cli, monkeypatch):
    """Where a layer cannot hold (here: no pids cgroup, workers keep uid 0), the doctor says so in words, and how a
    root user opts in."""
    from rewardsmith.sandbox import probe

    status = {n: LayerStatus(True, "on (x)") for n in probe.LAYERS}
    status["pids"] = LayerStatus(False, "off: no pids cgroup controller mounted here")
    status["uid-drop"] = LayerStatus(False, "off: kept uid 0")
    monkeypatch.setattr(probe, "probe_layers", lambda: status)
    code, out, _ = cli("doctor")
    text = " ".join(out.split())
    assert code == 0 and "ipc-ns" in text and "pids" in text
    assert "without pids: no limit on a worker's threads" in text
    assert "without uid-drop: workers run as uid 0" in text and "REWARDSMITH_ALLOW_UID0=1" in text
    assert "without seccomp" not in text
