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


def test_result_line_has_unit_random_policy_and_successes():
    from rewardsmith.formatting import result_line, short_unit

    final = {
        "fitness_mean": 0.029,
        "fitness_std": 0.004,
        "seeds": [
            {"seed": 0, "fitness": 0.03, "success_rate": 0.2, "episodes": 5},
            {"seed": 1, "fitness": 0.028, "success_rate": 0.0, "episodes": 5},
        ],
    }
    unit = short_unit("m/s: mean speed of `torso` along +x over the nominal 1000-step episode; higher is better")
    line = result_line(final, unit, 0.004)
    assert line == "fitness 0.029 m/s ± 0.004 std, n=2 (random policy 0.004), success 1/10 episodes"
    assert short_unit("fraction (0 to 1) of the nominal episode with site `tip` above 1 m") == ""
    assert result_line({"fitness_mean": None}) is None


def test_run_table_and_review_print_the_unit_random_policy_and_successes(tiny_spec, tmp_path):
    from rich.console import Console

    from rewardsmith.config import RunConfig
    from rewardsmith.files import write_json_atomic
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.search.live import result_tables
    from rewardsmith.task import read_task
    from rewardsmith.views.run_view import read_run
    from rewardsmith.views.tables import run_header

    spec = read_task(tiny_spec("hopper-hop"))
    config = RunConfig(task=str(spec.source), model="scripted:x.jsonl", workers=1).resolve(spec)
    (tmp_path / "run").mkdir()
    folder = RunFolder.create(tmp_path / "run", config, spec, "scripted:x.jsonl")
    seeds = [{"seed": 0, "status": "ok", "fitness": 0.029, "success_rate": 0.0, "episodes": 5}]
    final = {"candidate": "1.1", "timesteps": 1000, "seeds": seeds, "fitness_mean": 0.029, "fitness_std": 0.0}
    summary = {"status": "done", "final": final, "signal": {"verdict": "learned", "random_fitness": 0.004}}
    write_json_atomic(folder.path / "summary.json", summary)
    console = Console(record=True, width=220)
    console.print(*result_tables(folder), run_header(read_run(folder.path)))
    text = console.export_text()
    assert text.count("fitness 0.029 m/s, n=1 (random policy 0.004), success 0/5 episodes") == 2  # no "± 0 std"


def test_the_scripted_model_docs_example_is_served_by_role(tmp_path):
    """docs/scripted-model.md's example file is a valid script: each line reaches the role it names."""
    import re
    from pathlib import Path

    from rewardsmith.llm.choose import get_model

    page = (Path(__file__).parent.parent / "docs" / "scripted-model.md").read_text()
    block = re.search(r"```jsonl\n(.*?)\n```\n", page, re.DOTALL)
    assert block, "the page has a ```jsonl example"
    script = tmp_path / "hopper.jsonl"
    script.write_text(block.group(1) + "\n")
    model = get_model(f"scripted:{script}")
    messages = [{"role": "user", "content": "x"}]
    first = model.complete(messages, role="designer", sample=0).text
    assert "def compute_reward(state, action, next_state):" in first and "```python" in first
    assert "upright" in model.complete(messages, role="analyzer", sample=0).text
    assert "height" in model.complete(messages, role="designer", sample=1).text
