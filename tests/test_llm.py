"""The LLM layer: scripted model, cache, call log, retries and litellm through the loopback server."""

from __future__ import annotations

import json
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from rewardsmith import once
from rewardsmith.errors import LLMError, ScriptExhaustedError
from rewardsmith.llm import LLMResponse, Model, default_model_name, get_model
from rewardsmith.llm.choose import DEFAULT_MODELS, MODEL_ENV, require_model_ready
from rewardsmith.task import ENVS_DIR
from rewardsmith.testing import serve_scripted

REWARD = "```python\ndef compute_reward(state, action, next_state):\n    return 1.0, {'one': 1.0}\n```"


def write_script(path: Path, lines: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def ask(model: Model, text: str, role: str = "designer", **kwargs) -> LLMResponse:
    return model.complete([{"role": "user", "content": text}], role=role, **kwargs)


@pytest.fixture
def script(tmp_path: Path) -> Path:
    return write_script(
        tmp_path / "llm_script.jsonl",
        [
            {"role": "designer", "content": "d1"},
            {"role": "critic", "content": "c1"},
            {"role": "any", "content": "any1"},
            {"role": "designer", "content": "d2"},
        ],
    )


# --- scripted model -------------------------------------------------------------------------------


def test_scripted_matches_roles_then_any_then_exhausts(script: Path) -> None:
    model = get_model(f"scripted:{script}")
    assert model.kind == "scripted" and model.name == f"scripted:{script}"
    assert ask(model, "a", "critic").text == "c1"
    assert ask(model, "b").text == "d1"
    assert ask(model, "c").text == "any1"
    assert ask(model, "d").text == "d2"
    with pytest.raises(ScriptExhaustedError, match=rf"{script.name} has no line left for role 'analyzer'"):
        ask(model, "e", "analyzer")


def test_scripted_counts_tokens_as_chars_over_four(tmp_path: Path) -> None:
    model = get_model(f"scripted:{write_script(tmp_path / 's.jsonl', [{'role': 'any', 'content': 'x' * 40}])}")
    response = ask(model, "y" * 80)
    assert (response.prompt_tokens, response.completion_tokens, response.cost_usd) == (20, 10, 0.0)


def test_scripted_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"role": "designer", "content": "ok"}\n{"role": "critic", content: oops}\n')
    with pytest.raises(LLMError, match=r"bad\.jsonl:2: not valid JSON"):
        get_model(f"scripted:{path}")
    path.write_text('{"role": "judge", "content": "ok"}\n')
    with pytest.raises(LLMError, match=r"bad\.jsonl:1: role must be one of designer, critic, analyzer, any"):
        get_model(f"scripted:{path}")


def test_scripted_resume_replays_cache_and_continues_with_unused_lines(script: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = get_model(f"scripted:{script}", run_dir=run)
    assert [ask(first, "p1").text, ask(first, "p2").text] == ["d1", "any1"]
    state = json.loads((run / "llm" / "scripted_state.json").read_text())
    assert state["consumed"][str(script.resolve())] == [0, 2]

    resumed = get_model(f"scripted:{script}", run_dir=run)
    again = ask(resumed, "p1")
    assert again.text == "d1" and again.cached
    assert ask(resumed, "p3").text == "d2"


def test_scripted_is_thread_safe(tmp_path: Path) -> None:
    path = write_script(tmp_path / "s.jsonl", [{"role": "designer", "content": f"r{i}"} for i in range(16)])
    model = get_model(f"scripted:{path}", run_dir=tmp_path / "run")
    with ThreadPoolExecutor(8) as pool:
        texts = list(pool.map(lambda i: ask(model, "same prompt", sample=i).text, range(16)))
    assert sorted(texts) == sorted(f"r{i}" for i in range(16))
    logs = sorted(p.name for p in (tmp_path / "run" / "llm").glob("*_designer.json"))
    assert logs == [f"{i:04d}_designer.json" for i in range(1, 17)]


# --- cache and log --------------------------------------------------------------------------------


def test_cache_hit_skips_provider_and_is_logged(script: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    model = get_model(f"scripted:{script}", run_dir=run)
    fresh, cached = ask(model, "same"), ask(model, "same")
    assert (fresh.text, fresh.cached, cached.text, cached.cached) == ("d1", False, "d1", True)
    assert ask(model, "same", sample=1).text == "any1"  # another sample is another request
    records = [json.loads(p.read_text()) for p in sorted((run / "llm").glob("0*.json"))]
    assert [r["cached"] for r in records] == [False, True, False]
    assert records[1]["response"] == "d1" and records[1]["messages"] == [{"role": "user", "content": "same"}]
    assert records[0]["details"]["line"] == 1 and records[2]["sample"] == 1


def test_log_numbering_continues_after_existing_files(script: Path, tmp_path: Path) -> None:
    (tmp_path / "llm").mkdir()
    (tmp_path / "llm" / "0007_critic.json").write_text("{}")
    model = get_model(f"scripted:{script}", run_dir=tmp_path)
    ask(model, "x")
    assert ask(model, "y", "analyzer").text == "any1"
    with pytest.raises(ScriptExhaustedError):
        ask(model, "z", "analyzer")
    names = sorted(p.name for p in (tmp_path / "llm").glob("0*.json"))
    assert names == ["0007_critic.json", "0008_designer.json", "0009_analyzer.json", "0010_analyzer.json"]
    failed = json.loads((tmp_path / "llm" / "0010_analyzer.json").read_text())
    assert "no line left" in failed["error"] and failed["response"] is None
    assert not list((tmp_path / "llm").glob(".*.tmp"))


# --- litellm through the loopback server ----------------------------------------------------------


def test_litellm_real_http_path_parses_tokens_and_sends_role(script: Path, tmp_path: Path, api_env: None) -> None:
    run = tmp_path / "run"
    with serve_scripted(script) as server:
        model = get_model("openai/scripted", api_base=server.url, run_dir=run, cache_dir=tmp_path / "cache")
        response = model.complete([{"role": "user", "content": "x" * 400}], role="critic", max_tokens=50)
        assert server.roles == ["critic"]
        assert server.requests[0]["messages"] == [{"role": "user", "content": "x" * 400}]
        assert server.requests[0]["max_tokens"] == 50
    assert model.kind == "api" and response.text == "c1" and not response.cached
    assert (response.prompt_tokens, response.completion_tokens, response.cost_usd) == (100, 0, 0.0)
    record = json.loads(next((run / "llm").glob("0001_critic.json")).read_text())
    assert record["prompt_tokens"] == 100 and record["api_base"] == server.url and record["details"]["attempts"] == 1


def test_user_cache_means_a_repeated_run_never_pays_twice(script: Path, tmp_path: Path, api_env: None) -> None:
    with serve_scripted(script) as server:
        answers = []
        for run in ("run1", "run2"):
            model = get_model(
                "openai/scripted", api_base=server.url, run_dir=tmp_path / run, cache_dir=tmp_path / "c", use_cache=True
            )
            answers.append(ask(model, "task"))
        assert [a.text for a in answers] == ["d1", "d1"] and [a.cached for a in answers] == [False, True]
        assert len(server.requests) == 1
        own = get_model("openai/scripted", api_base=server.url, run_dir=tmp_path / "run3", cache_dir=tmp_path / "c")
        assert not ask(own, "task").cached and len(server.requests) == 2  # default: the run's own cache only
        assert ask(own, "task").cached and len(server.requests) == 2  # ...which a resume replays
        off = get_model("openai/scripted", api_base=server.url, run_dir=tmp_path / "run3", use_cache=False)
        assert not ask(off, "task").cached and len(server.requests) == 3  # --no-cache: nothing replayed


def test_retries_transient_failures(script: Path, tmp_path: Path, api_env: None) -> None:
    with serve_scripted(script, fail_first=2) as server:
        model = get_model("openai/scripted", api_base=server.url, run_dir=tmp_path, use_cache=False)
        assert ask(model, "x").text == "d1"
        assert len(server.requests) == 3
    assert json.loads((tmp_path / "llm" / "0001_designer.json").read_text())["details"]["attempts"] == 3


def test_gives_up_after_bounded_attempts(script: Path, api_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REWARDSMITH_LLM_ATTEMPTS", "3")
    with serve_scripted(script, fail_first=100, fail_status=503) as server:
        model = get_model("openai/scripted", api_base=server.url, use_cache=False)
        start = time.perf_counter()
        with pytest.raises(LLMError, match=r"unreachable after 3 attempts: .*503|unreachable after 3 attempts"):
            ask(model, "x")
        assert len(server.requests) == 3 and time.perf_counter() - start < 10


@pytest.mark.parametrize("status", [400, 401])
def test_client_errors_fail_at_once(script: Path, api_env: None, status: int) -> None:
    with serve_scripted(script, fail_first=1, fail_status=status) as server:
        model = get_model("openai/scripted", api_base=server.url, use_cache=False)
        with pytest.raises(LLMError, match="rejected the request" if status == 400 else "refused the credentials"):
            ask(model, "x")
        assert len(server.requests) == 1


def test_missing_key_is_named_before_any_call(no_keys: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    start = time.perf_counter()
    with pytest.raises(LLMError, match="needs OPENAI_API_KEY: set OPENAI_API_KEY or pass --model"):
        get_model("gpt-4o-mini")
    with pytest.raises(LLMError, match="needs ANTHROPIC_API_KEY"):
        require_model_ready("anthropic/claude-haiku-4-5")
    monkeypatch.setenv(MODEL_ENV, "gpt-4o-mini")
    with pytest.raises(LLMError, match="OPENAI_API_KEY"):
        require_model_ready(None)
    require_model_ready("local")
    require_model_ready("openai/served", api_base="http://127.0.0.1:9")  # a self-hosted server needs no key
    assert time.perf_counter() - start < 5


def test_a_model_name_no_provider_serves_is_named_before_any_call() -> None:
    """A typo ("gpt4o") or a served model without its "openai/" prefix: before, the run folder was made and the
    first designer call failed with litellm's "LLM Provider NOT provided"."""
    for name in ("gpt4o", "nosuch:model", "served"):
        with pytest.raises(LLMError, match=rf"model {name}: litellm knows no provider for it; name it as litellm does"):
            require_model_ready(name, api_base="http://127.0.0.1:9" if name == "served" else None)
    with pytest.raises(LLMError, match="needs OLLAMA_API_BASE"):  # a provider litellm knows: its own check follows
        require_model_ready("ollama/llama3")


def test_a_script_that_is_not_there_or_does_not_parse_is_named_before_a_run_folder(cli, tmp_path: Path) -> None:
    """Before, `run --model scripted:typo.jsonl` made the run folder and then stopped on the script."""
    with pytest.raises(LLMError, match="cannot read script /nonexistent.jsonl"):
        require_model_ready("scripted:/nonexistent.jsonl")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"content": "fine"}\nnot json\n')
    with pytest.raises(LLMError, match=r"broken.jsonl:2: not valid JSON"):
        require_model_ready(f"scripted:{broken}")
    code, _, err = cli("run", "hopper-hop", "--model", "scripted:/nonexistent.jsonl", "--out", tmp_path / "run")
    assert code != 0 and "cannot read script /nonexistent.jsonl" in err
    assert not (tmp_path / "run").exists()


def test_auth_errors_are_not_retried() -> None:
    """litellm reports a missing OpenAI key as a 500 InternalServerError; that must not be retried."""
    from rewardsmith.llm.litellm_model import _import_litellm, _is_retryable

    litellm = _import_litellm()
    missing = litellm.InternalServerError(
        message="OpenAIException - Missing credentials. Please pass an `api_key`", llm_provider="openai", model="x"
    )
    outage = litellm.InternalServerError(message="upstream overloaded", llm_provider="openai", model="x")
    assert not _is_retryable(litellm, missing) and _is_retryable(litellm, outage)


def test_server_exhausted_script_is_a_clear_client_error(script: Path, api_env: None) -> None:
    with serve_scripted(script) as server:
        model = get_model("openai/scripted", api_base=server.url, use_cache=False)
        assert ask(model, "x", "analyzer").text == "any1"
        with pytest.raises(LLMError, match="no line left for role 'analyzer'"):
            ask(model, "y", "analyzer")
        assert len(server.requests) == 2


def test_server_lists_models_and_defaults_role_to_any(script: Path) -> None:
    with serve_scripted(script) as server:
        with urllib.request.urlopen(f"{server.url}/models", timeout=5) as reply:
            assert json.load(reply)["data"][0]["id"] == "scripted"
        body = json.dumps({"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}).encode()
        request = urllib.request.Request(f"{server.url}/chat/completions", data=body, method="POST")
        with urllib.request.urlopen(request, timeout=5) as reply:
            answer = json.load(reply)
    assert answer["object"] == "chat.completion" and answer["choices"][0]["message"]["content"] == "d1"
    assert answer["choices"][0]["finish_reason"] == "stop" and set(answer["usage"]) >= {"prompt_tokens", "completion_tokens"}
    assert server.roles == ["any"]


# --- choosing a model -----------------------------------------------------------------------------


@pytest.fixture
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (MODEL_ENV, *DEFAULT_MODELS):
        monkeypatch.delenv(var, raising=False)


def test_default_model_is_local_with_a_warning(no_keys: None, capsys: pytest.CaptureFixture[str]) -> None:
    once.forget()  # a new process
    model = get_model(None, use_cache=False)
    assert (model.name, model.kind) == ("local", "local")
    err = capsys.readouterr().err
    assert "270M" in err and "OPENAI_API_KEY" in err
    get_model(None, use_cache=False)  # a batch picks the model for each task: the warning is said once
    assert "270M" not in capsys.readouterr().err


def test_default_model_follows_env_and_keys(no_keys: None, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    assert default_model_name().startswith("anthropic/")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert default_model_name() == "gpt-4o-mini"
    monkeypatch.setenv(MODEL_ENV, "openai/my-vllm-model")
    assert default_model_name() == "openai/my-vllm-model"
    assert capsys.readouterr().err == ""


def test_unknown_role_is_a_programming_error(script: Path) -> None:
    with pytest.raises(ValueError, match="role must be one of designer, critic, analyzer"):
        ask(get_model(f"scripted:{script}"), "x", "judge")


# --- the built-in local model ---------------------------------------------------------------------


@pytest.mark.slow
def test_local_model_completes_a_designer_prompt(tmp_path: Path) -> None:
    model = get_model("local", run_dir=tmp_path, use_cache=False)
    messages = [
        {"role": "system", "content": "Write a reward function. The state is a numpy array: [0] x, [1] height."},
        {"role": "user", "content": "Task: move forward."},
    ]
    response = model.complete(messages, role="designer", sample=1, max_tokens=48)  # ~13 s on 2 idle cores
    assert response.text.startswith("(Template, not designed by a model: the built-in offline model filled")  # says so
    assert "```python\n# rewardsmith template: " in response.text and "\nimport numpy as np" in response.text
    assert "def compute_reward(" in response.text
    assert response.completion_tokens <= 48 and response.prompt_tokens > 0 and response.cost_usd == 0.0
    logged = json.loads((tmp_path / "llm" / "0001_designer.json").read_text())
    assert logged["kind"] == "local"
    assert logged["details"]["prompt"].endswith('components["')  # the exact document the model continued
    assert isinstance(logged["details"]["completion"], str)  # and its raw lines, before the template check


# The lines a 270M base model wrote for ant-spin after the example (every candidate failed the smoke run),
# and more of the kinds that parse but cannot run:
HOSTILE_LINES = [
    'components["spin"] = 0.1 * abs(float(next_state["weight"]).pos[2])',
    "    component_tensor = state.joint(JOINT)",
    '    if len(state.body["torso"].pos[2]):',
    '        components["weight"] = weights',
    '    components["tilt"] = float(next_state.body(BODY).pos)',  # a 3-vector is not one number
    '    components["far"] = next_state.body(BODY).linvel[3]',  # no fourth coordinate
    '    components["bad"] = next_state.body("hinge").pos[0]',  # the cart-pole name, not this env's
    '    components["ref"] = components["weight"] * 2',
    "    # compute cost (the trained policy)",
    '    components["open"] = (next_state.body(BODY).pos[0]',  # cut off
]
ORIGINAL_TASKS = [n for n in (ENVS_DIR / "starter.txt").read_text().splitlines() if n and not n.startswith("#")]


@pytest.mark.parametrize("task", ORIGINAL_TASKS)
def test_offline_template_keeps_only_lines_that_run_on_the_env(task: str) -> None:
    """The built-in model's reply, closed by the template, runs on the task's real states however bad its
    lines: unrunnable lines are dropped (and counted in the reply), and a reward that would not read the
    state gets the example's task lines. No GGUF is loaded; the env's own states are used."""
    import re

    import numpy as np

    from rewardsmith.llm.local import close_function, example_lines, task_names
    from rewardsmith.llm.template import component_line, reads_state
    from rewardsmith.reward.state import Snapshotter
    from rewardsmith.stages.designer import Designer
    from rewardsmith.stages.env_description import describe
    from rewardsmith.task import load_task, make_env

    spec = load_task(task)
    names = task_names(Designer(None, spec, describe(spec)).prompt())
    body, joint = names["bodies"][0], names["joints"][0][0]
    example = example_lines(names)
    assert all(component_line(line, names) for line in example)  # the example itself passes the check
    task_lines = [line for line in example if reads_state(line)]
    example_keys = [re.match(r'components\["(\w+)"\]', line).group(1) for line in task_lines]  # type: ignore[union-attr]
    good = f'components["mine"] = 0.5 * float(np.clip(next_state.body("{body}").pos[2], -1, 1)) - state.dt'
    hostile = [line.replace("BODY", f'"{body}"').replace("JOINT", f'"{joint}"') for line in HOSTILE_LINES]
    env = make_env(spec)
    snap = Snapshotter(env)
    obs, _ = env.reset(seed=0)
    transitions = []
    for _ in range(3):
        action = env.action_space.sample()
        before = snap(obs)
        obs, *_ = env.step(action)
        transitions.append((before, action, snap(obs)))
    env.close()
    for lines, keys in [(hostile, example_keys), ([good, *hostile], ["mine"])]:
        completion = "\n".join(lines)[len('components["') :]  # the model continues the document's `components["`
        code, note = close_function(completion, names)
        scope: dict = {}
        exec(compile(code, f"<{task}>", "exec"), scope)  # our own template's code, run here on purpose
        for before, action, after in transitions:
            total, components = scope["compute_reward"](before, action, after)
            assert np.isfinite(total) and all(np.isfinite(v) for v in components.values())
        assert list(components) == keys
        assert f"{len(HOSTILE_LINES) - 1} of its lines could not run" in note  # a comment is not counted
        assert ("example's task lines were put in" in note) == (keys == example_keys)


def test_offline_example_of_a_goal_conditioned_env_reads_the_goal_and_checks_obs_sizes() -> None:
    """Where the prompt gives `state.goal` and `state.achieved_goal` (Fetch), the example measures the distance
    between them; `state.obs[i]` passes the template check only inside the observation's stated size."""
    from rewardsmith.llm.local import example_code, task_names
    from rewardsmith.llm.template import component_line
    from rewardsmith.stages.designer import Designer
    from rewardsmith.stages.env_description import describe
    from rewardsmith.task import load_task

    spec = load_task("fetch-reach")
    names = task_names(Designer(None, spec, describe(spec)).prompt())
    assert names["arrays"] == {"achieved_goal": 3, "goal": 3, "obs": 10}
    assert "np.linalg.norm(next_state.achieved_goal - next_state.goal)" in example_code(names)
    assert component_line('components["x"] = float(next_state.obs[9])', names)
    assert component_line('components["x"] = float(next_state.obs[10])', names) is None
    assert component_line('components["x"] = float(next_state.goal)', names) is None  # three numbers


def test_offline_reply_that_reads_no_state_says_so_where_the_template_has_no_task_term() -> None:
    """An obs-only env (no named bodies): lines out of range are dropped, and the reply says plainly that its
    reward does not measure the task rather than pass an action-only reward off as a design."""
    from rewardsmith.llm.local import close_function

    names = {"bodies": [], "joints": [], "sites": [], "task": "walk forward", "arrays": {"obs": 2}}
    code, note = close_function('speed"] = float(next_state.obs[5])\n    components["effort"] = -0.1 * float(np.sum(action))', names)
    assert "obs[5]" not in code and 'components["effort"]' in code
    assert "1 of its lines could not run" in note and "this reward does not measure the task" in note
    code, note = close_function('speed"] = float(next_state.obs[1])', names)
    assert 'components["speed"] = float(next_state.obs[1])' in code and note == ""
