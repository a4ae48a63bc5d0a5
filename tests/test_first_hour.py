"""What a newcomer meets first: the missing-API-key message comes at once, before anything heavy is imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

_PROBE = """
import json, sys
from rewardsmith.cli import main
sys.argv = ["rewardsmith", *sys.argv[1:]]
try:
    main()
except SystemExit as exc:
    code = exc.code
heavy = ("torch", "gymnasium", "stable_baselines3", "mujoco", "litellm", "rewardsmith.search.loop")
print(json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules]}))
"""


@pytest.mark.parametrize("model", ["gpt-4o-mini", "anthropic/claude-haiku-4-5"])
def test_missing_api_key_is_named_before_heavy_imports(model, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "REWARDSMITH_MODEL"}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "run", "hopper-hop", "-m", model, "--out", str(tmp_path / "run")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    elapsed = time.perf_counter() - start
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["code"] == 2 and "_API_KEY" in done.stderr and "Traceback" not in done.stderr
    assert result["loaded"] == []  # nothing heavy: the message does not wait for torch, gymnasium or litellm
    assert elapsed < 30  # generous (a busy machine); the import check above is what keeps it fast
    assert not (tmp_path / "run").exists()
