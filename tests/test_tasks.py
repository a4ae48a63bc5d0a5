"""Task specs: every shipped spec loads and builds; bad specs fail with a TaskSpecError naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardsmith.errors import TaskSpecError
from rewardsmith.task import ENVS_DIR, list_tasks, load_task, make_env, make_scorer

SPECS = sorted(p.stem for p in ENVS_DIR.glob("*.toml"))
GOOD = """
name = "tmp-task"
env = "HalfCheetah-v5"
description = "Run forward as fast as possible."
[fitness]
scorer = "scorers:ForwardProgress"
kwargs = { success_speed = 2.0 }
"""


def write(folder: Path, text: str, name: str = "tmp-task.toml") -> Path:
    path = folder / name
    path.write_text(text)
    (folder / "scorers.py").write_text((ENVS_DIR / "scorers.py").read_text())
    return path


def test_starter_suite_has_the_promised_tasks() -> None:
    names = {s.name for s in list_tasks()}
    assert len(names) >= 11
    assert {"halfcheetah-run", "hopper-backflip", "ant-spin", "walker2d-one-leg", "pusher-push"} <= names


def _speed(name: str):
    """The MuJoCo v5 specs build in milliseconds; Meta-World and the hand envs take seconds: slow set."""
    fast = load_task(name).env.endswith("-v5")
    return name if fast else pytest.param(name, marks=pytest.mark.slow)


@pytest.mark.parametrize("name", [_speed(n) for n in SPECS])
def test_every_spec_loads_builds_and_scores(name: str) -> None:
    spec = load_task(name)
    assert spec.name == name and spec.source == (ENVS_DIR / f"{name}.toml").resolve()
    assert len(spec.description.strip().splitlines()) >= 2
    env = make_env(spec)
    env.reset(seed=0)
    env.close()
    assert make_scorer(spec) is not None


def test_load_task_by_path(tmp_path: Path) -> None:
    spec = load_task(str(write(tmp_path, GOOD)))
    assert spec.name == "tmp-task" and spec.folder == tmp_path.resolve()
    assert make_scorer(spec).success_speed == 2.0


def test_unknown_task_name_lists_known_ones() -> None:
    with pytest.raises(TaskSpecError, match="unknown task 'no-such-task'.*halfcheetah-run"):
        load_task("no-such-task")


def test_malformed_toml_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('env = "HalfCheetah-v5"', 'env = "HalfCheetah-v5'))
    with pytest.raises(TaskSpecError, match=r"tmp-task\.toml: malformed TOML: .*line 3"):
        load_task(path)


@pytest.mark.parametrize("drop, field", [("description =", "description"), ("[fitness]", "fitness")])
def test_missing_field_is_named(tmp_path: Path, drop: str, field: str) -> None:
    lines = GOOD.strip().splitlines()
    kept = [ln for ln in lines if not ln.startswith(drop)]
    if field == "fitness":
        kept = [ln for ln in kept if not ln.startswith(("scorer", "kwargs"))]
    path = write(tmp_path, "\n".join(kept))
    with pytest.raises(TaskSpecError, match=rf"tmp-task\.toml: invalid task spec: field '{field}': missing"):
        load_task(path)


@pytest.mark.parametrize("steps", ["0", "-5"])
def test_a_time_limit_that_is_not_positive_is_named(tmp_path: Path, steps: str) -> None:
    """`max_episode_steps = -5` was a traceback from Gymnasium's TimeLimit; 0 silently meant the env's own limit."""
    path = write(tmp_path, GOOD + f"[train]\nmax_episode_steps = {steps}\n")
    with pytest.raises(TaskSpecError, match=r"field 'train.max_episode_steps': Input should be greater than 0"):
        load_task(path)


def test_unknown_env_id_names_the_file(tmp_path: Path) -> None:
    spec = load_task(write(tmp_path, GOOD.replace("HalfCheetah-v5", "NoSuchEnv-v9")))
    with pytest.raises(TaskSpecError, match=r"tmp-task\.toml: cannot make env 'NoSuchEnv-v9'"):
        make_env(spec)


@pytest.mark.parametrize("ref, message", [
    ("ForwardProgress", r"tmp-task\.toml: invalid task spec: field 'fitness.scorer'"),
    ("scorers:NoSuchScorer", r"scorers\.py: no 'NoSuchScorer'"),
    ("nomodule:ForwardProgress", r"nomodule\.py: module 'nomodule'.*not found"),
])
def test_bad_scorer_ref(tmp_path: Path, ref: str, message: str) -> None:
    path = write(tmp_path, GOOD.replace("scorers:ForwardProgress", ref))
    with pytest.raises(TaskSpecError, match=message):
        make_scorer(load_task(path))


def test_bad_scorer_kwargs_name_the_file(tmp_path: Path) -> None:
    spec = load_task(write(tmp_path, GOOD.replace("success_speed", "top_speed")))
    with pytest.raises(TaskSpecError, match=r"tmp-task\.toml: bad fitness kwargs"):
        make_scorer(spec)


def test_batch_list_names_existing_specs() -> None:
    lines = (ENVS_DIR / "locomotion.txt").read_text().splitlines()
    names = [ln.split("#")[0].strip() for ln in lines if ln.split("#")[0].strip()]
    assert len(names) >= 8
    assert set(names) <= set(SPECS)


BAD_SCORERS = '''
from rewardsmith.reward.fitness import EpisodeScorer


class SpawnHeight(EpisodeScorer):
    """Measures something no policy changes: the torso height at reset."""

    def reset(self, state):
        self.height = float(state.body("torso").pos[2])

    def result(self):
        return self.height, False

    def sparse_reward(self, state, action, next_state):
        return 0.0


class Crashes(EpisodeScorer):
    def step(self, state, action, next_state):
        state.body("no-such-body")

    def result(self):
        return 0.0, False
'''


def _spec_with(folder: Path, scorer: str, kwargs: str = "") -> Path:
    (folder / "my_scorers.py").write_text(BAD_SCORERS)
    (folder / "scorers.py").write_text((ENVS_DIR / "scorers.py").read_text())
    text = GOOD.replace('scorer = "scorers:ForwardProgress"', f'scorer = "{scorer}"')
    text = text.replace("kwargs = { success_speed = 2.0 }", f"kwargs = {{ {kwargs} }}")
    path = folder / "tmp-task.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("scorer", "kwargs", "message"),
    [
        ("scorers:ForwardProgres", "", "no 'ForwardProgres'"),
        ("scorers:ForwardProgress", "success_sped = 2.0", "bad fitness kwargs"),
        ("my_scorers:Crashes", "", "failed on a random-action episode: KeyError"),
    ],
)
def test_a_task_error_is_found_before_any_llm_call(tmp_path: Path, scorer: str, kwargs: str, message: str) -> None:
    from rewardsmith.reward.task_check import validate_task

    with pytest.raises(TaskSpecError, match=message):
        validate_task(load_task(_spec_with(tmp_path, scorer, kwargs)), max_steps=50)


def test_a_fitness_the_policy_cannot_change_is_flagged(tmp_path: Path) -> None:
    from rewardsmith.reward.task_check import validate_task

    blind = load_task(_spec_with(tmp_path, "my_scorers:SpawnHeight"))
    warnings = validate_task(blind, max_steps=50)
    assert any("may not depend on what the policy does" in w and "held actions" in w for w in warnings)
    floor = blind.fitness.model_copy(update={"floor": "the spawn height, whatever the policy does"})
    assert validate_task(blind.model_copy(update={"fitness": floor}), max_steps=50) == []  # the spec says why
    good = validate_task(load_task(_spec_with(tmp_path, "scorers:ForwardProgress", "success_speed = 2.0")), max_steps=50)
    assert good == []


def test_run_refuses_a_bad_scorer_before_the_model_is_called(cli, tmp_path: Path) -> None:
    path = _spec_with(tmp_path, "scorers:ForwardProgres")
    code, out, err = cli("run", path, "--model", "scripted:/dev/null", "--out", tmp_path / "run")
    assert code != 0 and "no 'ForwardProgres'" in out + err
    assert not (tmp_path / "run").exists()


def test_baseline_cache_is_keyed_by_spec_and_scorer_content(tmp_path: Path) -> None:
    import json

    from rewardsmith.search.baselines import cache_path, content_key, load_cached

    path = _spec_with(tmp_path, "scorers:ForwardProgress", "success_speed = 2.0")
    spec = load_task(path)
    cached = cache_path(spec, 512, 0, tmp_path / "cache")
    cached.parent.mkdir(parents=True)
    cached.write_text(json.dumps({"human": 1.0, "sparse": 0.0}))
    assert load_cached(spec, 512, root=tmp_path / "cache") == {"human": 1.0, "sparse": 0.0}
    before = content_key(spec)
    (tmp_path / "scorers.py").write_text((tmp_path / "scorers.py").read_text() + "\n# changed\n")
    assert content_key(spec) != before and load_cached(spec, 512, root=tmp_path / "cache") is None
    path.write_text(path.read_text().replace("success_speed = 2.0", "success_speed = 3.0"))
    assert content_key(load_task(path)) not in (before,)


def test_a_calibration_that_trained_a_policy_apart_from_random_answers_the_blind_check() -> None:
    """lunarlander-land: random, idle and full-thrust episodes all crash (fitness 0), so the check alone would call
    its scorer blind to the policy; its calibration trained a policy to 0.93 against random's 0.0, which shows
    the scorer depends on the policy. Without that record, or with one that does not show it, the warning stays."""
    from rewardsmith.reward.task_check import trained_policy_scores_otherwise, validate_task

    spec = load_task("lunarlander-land")
    assert trained_policy_scores_otherwise(spec)
    assert not any("may not depend on what the policy does" in w for w in validate_task(spec))
    bare = spec.model_copy(update={"calibration": None})
    warned = [w for w in validate_task(bare) if "may not depend on what the policy does" in w]
    assert warned and "`rewardsmith calibrate` shows whether" in warned[0]
    cal = spec.calibration
    assert cal is not None
    level = cal.model_copy(update={"good": [0.05, 0.03], "random": [0.0, 0.0]})  # within 2 se of random
    assert not trained_policy_scores_otherwise(spec.model_copy(update={"calibration": level}))
    stale = cal.model_copy(update={"stale": "with other training settings than the spec's now"})
    assert not trained_policy_scores_otherwise(spec.model_copy(update={"calibration": stale}))


def test_an_action_held_a_whole_episode_shows_what_random_jitter_does_not() -> None:
    """fetch-pick-and-place: random and idle arms leave the block where it is (the same fitness from every
    reset seed tried); the arm driven to the low end of its range the whole episode moves it."""
    from rewardsmith.reward import task_check

    spec = load_task("fetch-pick-and-place")
    assert spec.fitness.floor is None and spec.calibration is None
    tried: list[str] = []
    episode = task_check._episode

    def recorded(env, spec, policy, *args, **kwargs):
        tried.append(policy)
        return episode(env, spec, policy, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(task_check, "_episode", recorded)
        assert not any("may not depend" in w for w in task_check.validate_task(spec))
    assert tried[:3] == ["random", "random", "zero"] and "low held" in tried


def test_an_envs_module_is_first_imported_under_the_import_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's tasks build their envs on threads of one process: two classic-control tasks at once failed with
    `cannot import name 'PendulumEnv' from partially initialized module` (2 runs in 6 of `make_env` on two threads).
    The env's entry-point module (and a spec's `imports`) is imported holding `task._IMPORT_LOCK`."""
    from rewardsmith import task

    real, held = task.importlib.import_module, {}

    def recording(name: str, *args):
        held.setdefault(name, task._IMPORT_LOCK._is_owned())  # the first import; gym.make's own finds it loaded
        return real(name, *args)

    monkeypatch.setattr(task.importlib, "import_module", recording)
    make_env(load_task("pendulum-spin")).close()
    make_env(load_task("fetch-reach")).close()  # a spec with `imports` (gymnasium_robotics)
    assert held == {
        "gymnasium.envs.classic_control.pendulum": True,
        "gymnasium_robotics": True,
        "gymnasium_robotics.envs.fetch.reach": True,
    }, held


@pytest.mark.slow
def test_two_threads_build_classic_control_envs_in_a_fresh_process() -> None:
    """The race itself, in fresh processes (the modules must not be imported yet): before the lock, 2 runs in 6
    failed."""
    import subprocess
    import sys

    code = (
        "import threading\n"
        "from rewardsmith.task import load_task, make_env\n"
        "specs = [load_task('pendulum-spin'), load_task('cartpole-hold-right')]\n"
        "barrier, errors = threading.Barrier(2), []\n"
        "def build(spec):\n"
        "    barrier.wait()\n"
        "    try:\n"
        "        make_env(spec).close()\n"
        "    except Exception as e:\n"
        "        errors.append(repr(e))\n"
        "threads = [threading.Thread(target=build, args=(s,)) for s in specs]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(errors)\n"
    )
    for _ in range(8):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr[-2000:]
