"""`sandbox.minimum` / `--sandbox-minimum`: a run refuses to start when the machine offers fewer layers."""

from __future__ import annotations

from rewardsmith import settings
from rewardsmith.sandbox.probe import LayerStatus, probe_layers


def test_run_refuses_to_start_without_required_layers(cli, tiny_spec, tmp_path, monkeypatch):
    real = probe_layers()  # this machine's real answer, with one required layer reported absent
    monkeypatch.setattr(settings, "_probe", lambda: {**real, "landlock": LayerStatus(False, "kernel too old")})
    out = tmp_path / "run"
    code, _, err = cli("run", tiny_spec("inverted-double-pendulum-balance"), "--model", "scripted:/nonexistent.jsonl",
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
