"""Trajectory preference screening: rebuilt states, the sandboxed screen worker, the statistics, the loop's --screen."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from rewardsmith.cli import app
from rewardsmith.reward.state import State, schema_for, snapshot
from rewardsmith.run_folder.names import SCREEN_DIR, SCREEN_FILE
from rewardsmith.stages.screen import judge, screen, signal_share
from rewardsmith.stats import ranks, spearman
from rewardsmith.task import load_task, make_env, read_task
from rewardsmith.workers.executor import LocalExecutor
from rewardsmith.workers.trajectories import Episode, load_episodes, save_episodes

EXECUTOR = LocalExecutor(workers=2)
"""The worker pool of this module's stage calls (a stage takes its executor explicitly)."""

DATA = Path(__file__).parent / "data"
HOSTILE = Path(__file__).parent / "hostile"
SPEEDS = (-2.0, -1.0, -0.5, 0.5, 1.0, 2.0)
HEADER = "import numpy as np\n\n\ndef compute_reward(state, action, next_state):\n"


@pytest.fixture(scope="module")
def cheetah(tmp_path_factory):
    """A HalfCheetah spec and archives of synthetic runs at fixed speeds (fitness = speed), two files."""
    from tests.conftest import constant_speed_episodes, make_tiny_spec

    folder = tmp_path_factory.mktemp("cheetah")
    spec = read_task(make_tiny_spec(folder, "halfcheetah-run"))
    episodes = constant_speed_episodes(spec, SPEEDS, SPEEDS)  # fitness = speed
    files = {"1.1": folder / "a.npz", "1.2": folder / "b.npz"}
    save_episodes(files["1.1"], episodes[:3])  # a slow policy and a fast one: spread enough to judge
    save_episodes(files["1.2"], episodes[3:])
    return spec, files


def reward_file(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "reward.py").write_text(HEADER + body)
    return folder / "reward.py"


def test_state_from_arrays_matches_a_live_snapshot():
    env = make_env(load_task("halfcheetah-run"))
    schema = schema_for(env)
    obs, _ = env.reset(seed=3)
    env.action_space.seed(3)
    for _ in range(15):
        obs, *_ = env.step(env.action_space.sample())
    live = snapshot(env, obs, schema)
    rebuilt = State.from_arrays(live.obs, live.qpos, live.qvel, live.dt, schema, time=live.time)
    for name in ("torso", "bfoot", "ffoot"):
        np.testing.assert_allclose(rebuilt.body(name).pos, live.body(name).pos, atol=1e-12)
        np.testing.assert_allclose(rebuilt.body(name).linvel, live.body(name).linvel, atol=1e-9)
    assert rebuilt.joint("bthigh").qvel == live.joint("bthigh").qvel and rebuilt.time == live.time
    archived = State.from_arrays(
        live.obs.astype(np.float32), live.qpos.astype(np.float32), live.qvel.astype(np.float32), live.dt, schema
    )
    np.testing.assert_allclose(archived.body("torso").pos, live.body("torso").pos, atol=1e-5)
    assert not rebuilt.qpos.flags.writeable
    env.close()


def test_aligned_reward_passes_and_anti_aligned_fails_with_an_example(cheetah, tmp_path):
    spec, files = cheetah
    aligned = reward_file(tmp_path / "up", "    v = float(next_state.body('torso').linvel[0])\n    return v, {'v': v}\n")
    report = screen(spec, aligned, tmp_path / "up", files, executor=EXECUTOR)
    assert report.passed and report.accuracy == 1.0 and report.spearman == pytest.approx(1.0)
    assert report.episodes == 6 and report.pairs == 15
    assert {d["label"] for d in report.details} == {"1.1", "1.2"}
    assert json.loads((tmp_path / "up" / SCREEN_FILE).read_text())["passed"] is True

    anti = reward_file(tmp_path / "down", "    v = float(next_state.body('torso').linvel[0])\n    return -v, {'v': -v}\n")
    report = screen(spec, anti, tmp_path / "down", files, executor=EXECUTOR)
    assert not report.passed and report.accuracy == 0.0 and report.spearman == pytest.approx(-1.0)
    assert report.message.startswith("your reward prefers the trajectories with lower fitness: accuracy 0.00 on 15")
    assert "e.g. episode of 1.2 (fitness 2) got return -40" in report.message
    assert "fitness -2) got 40" in report.message and "Mean fitness" in report.repair_text()
    worker = json.loads((tmp_path / "down" / SCREEN_DIR / SCREEN_FILE).read_text())
    assert [row["steps"] for row in worker["episodes"]] == [20] * 6 and worker["sandbox"]


def test_reward_errors_and_hostile_code_fail_the_screen(cheetah, tmp_path):
    spec, files = cheetah
    broken = reward_file(tmp_path / "broken", "    return 1.0 / float(action[0]), {}\n")
    report = screen(spec, broken, tmp_path / "broken", files, executor=EXECUTOR)
    assert not report.passed and report.message.endswith("ZeroDivisionError: float division by zero (on episode 0 "
                                                         "of candidate 1.1, step 0)")
    nan = reward_file(tmp_path / "nan", "    return float('nan'), {}\n")
    assert "must be finite, got nan (on episode 0 of candidate 1.1, step 0)" in screen(spec, nan, tmp_path / "nan",
                                                                                        files, executor=EXECUTOR).message

    hostile = tmp_path / "hostile"
    hostile.mkdir()
    shutil.copy(HOSTILE / "os_system.py", hostile / "reward.py")
    report = screen(spec, hostile / "reward.py", hostile, files, executor=EXECUTOR)
    assert not report.passed and report.accuracy is None
    assert f"{(hostile / 'reward.py').resolve()}:" in report.message and "os" in report.message
    assert not Path("/tmp/rewardsmith-hostile-escape").exists() and not (hostile / SCREEN_DIR / SCREEN_FILE).exists()


LABEL_FORGER = """import gc

import numpy as np


def compute_reward(state, action, next_state):
    # the screen's verdict compares returns with the archive's fitness labels: find this episode's label in the
    # worker's memory and echo it, times a million, on its first step; otherwise reward going backward
    if state.time == 0:
        for obj in gc.get_objects():
            if type(obj).__name__ == "Episode" and len(obj.qpos) > 1 \\
                    and np.allclose(obj.qpos[0], state.qpos) and np.allclose(obj.qpos[1], next_state.qpos):
                return 1e6 * obj.fitness, {}
    return -float(next_state.qvel[0]), {}
"""


def test_the_screen_worker_never_holds_the_fitness_labels(cheetah, tmp_path):
    """A reward that reads the labels from its worker's memory (the AST gate off, as a gate bypass would leave
    it) could forge a pass; the worker gets copies with fitness 0, so it is judged on what it rewards."""
    spec, files = cheetah
    (tmp_path / "reward.py").write_text(LABEL_FORGER)
    report = screen(spec, tmp_path / "reward.py", tmp_path, files, ast_gate=False, executor=EXECUTOR)
    assert not report.passed and report.accuracy == 0.0, report.message
    assert not (tmp_path / "screen_inputs").exists(), "the label-free copies are removed after the screen"
    assert {e.fitness for path in files.values() for e in load_episodes(path)} == set(SPEEDS)  # originals untouched


def test_too_few_episodes_pass_without_a_worker_and_bad_archives_are_skipped(cheetah, tmp_path):
    spec, files = cheetah
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    save_episodes(tmp_path / "two.npz", load_episodes(files["1.1"])[:2])
    report = screen(spec, reward_file(tmp_path / "c", "    return 0.0, {}\n"), tmp_path / "c",
                    {"1.1": tmp_path / "two.npz", "1.3": tmp_path / "junk.npz"}, executor=EXECUTOR)
    assert report.passed and report.message.startswith("passed without a verdict: not enough trajectories to judge "
                                                       "(2 episodes")
    assert "skipped unreadable archives" in report.message and not (tmp_path / "c" / SCREEN_DIR).exists()


def test_statistics():
    np.testing.assert_array_equal(ranks(np.array([3.0, 1.0, 2.0, 2.0])), [3.0, 0.0, 1.5, 1.5])
    assert spearman(np.array([1.0, 2.0, 3.0]), np.array([10.0, 30.0, 20.0])) == pytest.approx(0.5)
    assert spearman(np.ones(3), np.arange(3.0)) is None
    rows = [
        {"label": label, "episode": 0, "fitness": f, "return": r}
        for label, (f, r) in zip("abcd", [(0.0, 1.0), (0.5, 1.0), (1.0, 3.0), (1.0, 0.0)])
    ]
    report = judge(rows)  # pairs with distinct fitness: 5; agree: (0,2) (1,2); tie (0,1) half; (0,3) (1,3) wrong
    assert report.pairs == 5 and report.accuracy == pytest.approx(0.5) and not report.passed
    assert report.message.startswith("your reward barely tells better trajectories from worse ones")


def test_an_archive_without_spread_passes_with_a_note_whatever_the_reward():
    """The pool run's case: every episode from near-random policies, fitness differences within the episode noise.
    Even a reward that ranks them backwards passes, and the verdict says the archive cannot judge."""
    rng = np.random.default_rng(0)
    noisy = [
        {"label": label, "episode": i, "fitness": f, "return": -f}
        for label in ("1.1", "1.2", "1.3")
        for i, f in enumerate(rng.normal(0.0, 0.02, 5))
    ]
    report = judge(noisy)
    assert report.passed and report.accuracy is None
    assert "too little spread to judge" in report.message and "between-policy share" in report.message
    one = [{**row, "label": "1.1"} for row in noisy]
    assert "all 15 episodes come from one policy" in judge(one).message
    spread = [{**row, "fitness": row["fitness"] + {"1.1": 0.0, "1.2": 0.5, "1.3": 1.0}[row["label"]]} for row in noisy]
    spread = [{**row, "return": -row["fitness"]} for row in spread]
    verdict = judge(spread)  # the same reward on an archive whose policies differ: rejected
    assert not verdict.passed and verdict.accuracy is not None and verdict.accuracy < 0.1
    assert signal_share(spread) > 0.9 > 0.5 > signal_share(noisy)


@pytest.mark.slow
def test_loop_with_screen_repairs_an_anti_aligned_candidate(tiny_spec, tmp_path, monkeypatch):
    import functools

    from rewardsmith.search import design_round

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    # 20,000 steps: the honest rewards of iteration 1 then keep the pole up about three times longer than the
    # random policy does, so the archive has spread (at 1,024 steps it has none: see below). Its between-policy
    # share came out at 0.45 and 0.50 on two runs (fresh evaluation seeds), at the edge of the default 0.5; this
    # test is about the loop's repair path, so it asks for 0.2 (the rule itself has its fast tests above)
    monkeypatch.setattr(design_round, "screen", functools.partial(screen, min_signal=0.2))
    spec_path = tiny_spec("inverted-double-pendulum-balance", timesteps=20000, eval_episodes=4)
    out = tmp_path / "run"
    result = CliRunner().invoke(
        app,
        [
            "run",
            str(spec_path),
            "--model",
            f"scripted:{DATA / 'loop_screen.jsonl'}",
            "--iterations",
            "2",
            "--samples",
            "2",
            "--workers",
            "2",
            "--final-seeds",
            "0",
            "--screen",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, f"{result.output}\n{result.exception!r}"
    assert json.loads((out / "run.json").read_text())["config"]["screen"] is True
    for j in (1, 2):
        cand = out / "iter_1" / f"cand_{j}"
        episodes = [json.loads(line) for line in (cand / "eval" / "eval_episodes.jsonl").read_text().splitlines()]
        archived = load_episodes(cand / "eval" / "trajectories.npz")
        assert [e.fitness for e in archived] == [e["fitness"] for e in episodes]
        assert [e.steps for e in archived] == [min(e["length"], 1000) for e in episodes]
    anti = next(p.parent for p in out.glob("iter_2/cand_*/attempt_0.py") if "low_tip" in p.read_text())
    attempts = json.loads((anti / "attempts.json").read_text())
    first = json.loads((anti / "attempt_0.screen.json").read_text())
    if first["message"].startswith("passed without a verdict"):  # training noise: the fast tests plant the archive
        pytest.skip(f"iteration 1's archives had too little spread to judge on this run: {first['message'][:200]}")
    assert [a["accepted"] for a in attempts] == [False, True], first
    assert attempts[0]["findings"][0].startswith("[screen] preference: your reward prefers the trajectories with lower")
    assert first["passed"] is False
    assert json.loads((anti / "attempt_1.screen.json").read_text())["passed"] is True
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    screens = [e for e in events if e["event"] == "screen_done" and "rung" not in e]  # before training
    assert len(screens) == 3 and all(e["episodes"] == 12 for e in screens)  # 2 candidates and the random policy
    assert not any(e["candidate"].startswith("1.") for e in screens)  # iteration 1 has no archive before training
    first_cuts = [e for e in events if e["event"] == "screen_done" and e.get("rung") == 1]
    assert sorted(e["candidate"] for e in first_cuts) == ["1.1", "1.2", "2.1", "2.2"]  # every candidate, once
    random = [e for e in events if e["event"] == "random_policy_evaluated"]
    assert len(random) == 1 and random[0]["episodes"] == 4  # played once, for every screen of the run
    calls = [json.loads(p.read_text()) for p in sorted((out / "llm").glob("*_designer.json"))]
    repair = next(
        c["messages"][-1]["content"] for c in calls if "trajectory screen rejected" in c["messages"][-1]["content"]
    )
    assert "e.g. episode of 1." in repair
    assert json.loads((anti / "candidate.json").read_text())["status"] == "trained"


@pytest.mark.slow
def test_screen_job_carries_its_archives_to_a_ray_node(cheetah, tmp_path):
    """A Ray node may not share the run folder: the archives travel with the job and come back as returns."""
    import io
    import tarfile

    from rewardsmith.workers.job import WorkerJob
    from rewardsmith.workers.ray_executor import job_inputs, run_on_node

    spec, files = cheetah
    reward = reward_file(tmp_path / "cand", "    v = float(next_state.qvel[0])\n    return v, {'v': v}\n")
    job = WorkerJob(mode="screen", task_path=spec.source, reward_path=reward, out_dir=tmp_path / "cand" / SCREEN_DIR,
                    options={"trajectories": {k: str(v) for k, v in files.items()}})
    inputs = job_inputs(job)
    assert {"trajectories/0.npz", "trajectories/1.npz"} <= set(inputs)
    reply = run_on_node(job.model_dump_json(), inputs)
    assert reply["status"] == "ok", reply["error"]
    with tarfile.open(fileobj=io.BytesIO(reply["files"])) as tar:
        rows = json.load(tar.extractfile(SCREEN_FILE))["episodes"]
    assert [(r["label"], r["return"]) for r in rows] == [
        ("1.1", -40.0),
        ("1.1", -20.0),
        ("1.1", -10.0),
        ("1.2", 10.0),
        ("1.2", 20.0),
        ("1.2", 40.0),
    ]


# -- the `replay` mode: a trained candidate's reward over its own evaluation episodes, for the analyzer ---------

KNOWN = """    v = float(next_state.body('torso').linvel[0])
    effort = -0.1 * float(np.sum(np.square(action)))
    rise = float(next_state.body('torso').pos[2] - state.body('torso').pos[2])
    return v + effort + rise, {'speed': v, 'effort': effort, 'rise': rise}
"""


def live_rollouts(spec, reward_fn, path: Path, episodes: int = 2, steps: int = 30) -> list[list[tuple]]:
    """HalfCheetah rollouts (varied actions) through the path training takes (`ApplyReward` calling `reward_fn` on
    live States), recorded as the evaluation worker records them into `path`; returns, per episode, what
    `reward_fn` returned at each step."""
    from rewardsmith.reward.wrappers import ApplyReward
    from rewardsmith.task import make_scorer
    from rewardsmith.workers.trajectories import TrajectoryRecorder

    seen: list[list[tuple]] = []

    def live(state, action, next_state):
        result = reward_fn(state, action, next_state)
        seen[-1].append(result)
        return result

    env = ApplyReward(make_env(spec), reward_fn=live, scorer=make_scorer(spec))
    recorder = TrajectoryRecorder(env)
    for e in range(episodes):
        seen.append([])
        env.reset(seed=e)
        recorder.start(env.state)
        for t in range(steps):
            action = np.cos(0.3 * t + np.arange(6) + e).astype(np.float32)
            env.step(action)
            recorder.step(action, env.state)
        recorder.finish(1.0 - e)
    env.close()
    recorder.save(path)
    return seen


def load_reward(path: Path, source: str | None = None):
    """`compute_reward` of a test's own reward file, loaded here (test code, not generated code)."""
    namespace: dict = {}
    exec(compile(source or path.read_text(), str(path), "exec"), namespace)
    return namespace["compute_reward"]


@pytest.fixture(scope="module")
def recorded(cheetah, tmp_path_factory):
    """Two real HalfCheetah rollouts recorded as the evaluation worker records them, and KNOWN's live values."""
    spec, _ = cheetah
    path = tmp_path_factory.mktemp("recorded") / "trajectories.npz"
    live = live_rollouts(spec, load_reward(path, HEADER + KNOWN), path)
    return spec, path, live


def test_replay_worker_returns_the_rewards_components_at_the_asked_steps(recorded, tmp_path, monkeypatch):
    """The worker's per-step components equal the same reward computed here, in-process, on the same States."""
    import tempfile

    from rewardsmith.workers.replay import OWN, ReplayArchive, replay_reward

    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # where the worker's folder is made
    spec, path, live = recorded
    episodes = load_episodes(path)
    reward = reward_file(tmp_path / "cand", KNOWN)
    steps = {0: [0, 7, 29], 1: [3]}
    replayed, why = replay_reward(spec, reward, [ReplayArchive(OWN, episodes, steps=steps)], executor=EXECUTOR)
    assert why == "" and replayed is not None and len(replayed) == 1
    [replayed] = replayed
    assert len(replayed) == 2

    for i, here in enumerate(live):  # the replay gives what training computed on the live states, exactly
        assert replayed[i]["return"] == pytest.approx(sum(total for total, _ in here), rel=1e-12, abs=1e-12)
        for name in ("speed", "effort", "rise"):
            assert replayed[i]["components"][name] == pytest.approx(sum(p[name] for _, p in here), rel=1e-12, abs=1e-12)
        assert sorted(replayed[i]["trace"]) == steps[i]
        for t, parts in replayed[i]["trace"].items():
            assert parts == here[t][1]
    assert len({round(replayed[0]["trace"][t]["speed"], 9) for t in steps[0]}) == 3  # the steps really differ
    assert list((tmp_path / "tmp").iterdir()) == []  # the worker's temporary folder is gone


def test_replay_of_a_failing_or_hostile_reward_gives_no_components(recorded, tmp_path):
    from rewardsmith.workers.replay import OWN, ReplayArchive, replay_reward

    spec, path, _ = recorded
    archives = [ReplayArchive(OWN, load_episodes(path), steps={0: [1]})]
    broken = reward_file(tmp_path / "broken", "    return 1.0 / 0.0, {}\n")
    replayed, why = replay_reward(spec, broken, archives, executor=EXECUTOR)
    assert replayed is None and "ZeroDivisionError" in why and "recorded evaluation episode 0, step 0" in why
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    shutil.copy(HOSTILE / "os_system.py", hostile / "reward.py")
    replayed, why = replay_reward(spec, hostile / "reward.py", archives, executor=EXECUTOR)
    assert replayed is None and why.startswith("the replay worker rejected the reward: ") and "import of `os`" in why
    assert not Path("/tmp/rewardsmith-hostile-escape").exists()


def test_malformed_replay_reports_are_refused_whole():
    """Anything off in the worker's replay.json (it ran the candidate's code) gives no values at all."""
    from rewardsmith.workers.replay import ReplayArchive, parse_replay

    episodes = [Episode(np.zeros((4, 2)), np.zeros((4, 2)), np.zeros((4, 2)), np.zeros((3, 1)), 1.0)]
    archives = [ReplayArchive("own", episodes, steps={0: [1, 2]})]
    good = {
        "episodes": [
            {
                "label": "own",
                "episode": 0,
                "steps": 3,
                "return": 2.5,
                "components": {"speed": 2.0, "alive": 0.5},
                "trace": [{"step": 1, "total": 1.0, "components": {"speed": 0.7, "alive": 0.3}}],
            }
        ]
    }
    assert parse_replay(good, archives) == [
        [{"return": 2.5, "components": {"speed": 2.0, "alive": 0.5}, "trace": {1: {"speed": 0.7, "alive": 0.3}}}]
    ]

    def bad(**change) -> dict:
        data = json.loads(json.dumps(good))
        row = data["episodes"][0]
        for key, value in change.items():
            if key.startswith("trace_"):
                row["trace"][0][key[6:]] = value
            else:
                row[key] = value
        return data

    for data in (
        None,
        [],
        {"episodes": []},
        {"episodes": "x"},
        bad(steps=4),
        bad(episode=1),
        bad(label="1.2"),
        bad(label=None),
        bad(**{"return": None}),
        bad(**{"return": True}),
        bad(components={"speed": "1"}),
        bad(components={"\x1b]52;c;x": 1.0}),
        bad(components={f"c{i}": 1.0 for i in range(40)}),
        bad(components=[1.0]),
        bad(trace="x"),
        bad(trace_step=2.0),
        bad(trace_step=3),
        bad(trace_components={"speed": 1e400}),
        bad(trace_components=None),
        bad(trace=[good["episodes"][0]["trace"][0]] * 2),
    ):
        assert parse_replay(data, archives) is None, data
    unasked = [ReplayArchive("own", episodes)]
    assert parse_replay(good, unasked) is None  # values at a step the parent did not ask for
    assert parse_replay(good, [ReplayArchive("own", episodes, picked=())]) is None  # not picked


def test_trained_archives_come_from_the_parents_records(tmp_path):
    """The archives the screen and the analyzer's replay read: candidates recorded as trained, with an archive."""
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.run_folder.records import CandidateRecord
    from rewardsmith.stages.screen import trained_archives

    folder = RunFolder(tmp_path)
    for (i, j), status, archive in (
        ((1, 1), "trained", True),
        ((1, 2), "failed", True),
        ((1, 3), "trained", False),
        ((2, 1), "trained", True),
        ((2, 2), "designed", True),
    ):
        (folder.cand_dir(i, j) / "eval").mkdir(parents=True)
        if archive:
            (folder.cand_dir(i, j) / "eval" / "trajectories.npz").write_bytes(b"x")
        folder.save_candidate(CandidateRecord(id=f"{i}.{j}", iteration=i, index=j, status=status))
    found = trained_archives(folder)
    assert found == {
        cid: folder.cand_dir(*map(int, cid.split("."))) / "eval" / "trajectories.npz" for cid in ("1.1", "2.1")
    }
    assert list(trained_archives(folder, before_iteration=2)) == ["1.1"]
    (folder.cand_dir(1, 2) / "candidate.json").write_text('{"id": "1.2", "status": "trained"')  # unreadable: no record
    assert list(trained_archives(folder)) == ["1.1", "2.1"]


def test_a_reward_cannot_tell_a_replay_from_training(cheetah, tmp_path):
    """hostile/replay_tells.py reads every tell found (float32 round trips of qpos and obs, MuJoCo's running time,
    dt, contacts and their forces, derived body arrays, the state chain, the action's dtype and shape): through the
    replay worker (the screen's states) each one reads exactly what it read live in training."""
    from rewardsmith.workers.replay import OWN, ReplayArchive, replay_reward

    spec, _ = cheetah
    program = HOSTILE / "replay_tells.py"
    live = live_rollouts(spec, load_reward(program), tmp_path / "trajectories.npz")
    episodes = load_episodes(tmp_path / "trajectories.npz")
    assert episodes[0].qpos.dtype == np.float64 and episodes[0].time is not None
    steps = {i: list(range(e.steps)) for i, e in enumerate(episodes)}
    replayed, why = replay_reward(spec, program, [ReplayArchive(OWN, episodes, steps=steps)], executor=EXECUTOR)
    assert why == "" and replayed is not None
    for i, here in enumerate(live):
        assert [total for total, _ in here] == [0.0] * len(here)  # live: qpos never survives a float32 round trip
        for t, (_, parts) in enumerate(here):
            assert replayed[0][i]["trace"][t] == parts, (i, t)
    contacts = [parts["contacts"] for episode in live for _, parts in episode]
    assert max(contacts) > 0  # the contacts tell was really exercised


def test_archives_of_the_old_float32_layout_still_replay(cheetah, tmp_path):
    """A run folder from before the float64 layout resumes: its archives load and replay."""
    from rewardsmith.workers.replay import OWN, ReplayArchive, replay_reward

    spec, _ = cheetah
    env = make_env(spec)
    obs, _ = env.reset(seed=0)
    qpos, qvel = env.unwrapped.data.qpos.copy(), env.unwrapped.data.qvel.copy()
    env.close()
    f32 = np.float32
    np.savez_compressed(
        tmp_path / "old.npz",
        obs=np.stack([obs, obs]).astype(f32),
        qpos=np.stack([qpos, qpos]).astype(f32),
        qvel=np.stack([qvel, qvel]).astype(f32),
        action=np.zeros((1, 6), f32),
        steps=np.array([1]),
        fitness=np.array([0.5]),
    )
    [episode] = load_episodes(tmp_path / "old.npz")
    assert episode.time is None and episode.steps == 1 and episode.fitness == 0.5
    reward = reward_file(tmp_path / "cand", KNOWN)
    replayed, why = replay_reward(spec, reward, [ReplayArchive(OWN, [episode])], executor=EXECUTOR)
    assert why == "" and replayed is not None and np.isfinite(replayed[0][0]["return"])


def _fingerprint(state, action, next_state, previous: list) -> list:
    """Everything a reward can read of a transition: arrays (bytes, dtype, shape, flags, ownership), time, dt, goal,
    contacts, every body's pose and velocity, the action, and whether `state` is the last call's `next_state`."""
    out: list = []
    for s in (state, next_state):
        arrays = [s.obs, s.qpos, s.qvel, *s.parts.values()] + ([s.goal] if s.goal is not None else [])
        out.append(
            [(a.dtype.str, a.shape, a.tobytes(), a.flags.writeable, a.flags.owndata, a.base is None) for a in arrays]
        )
        out.append((s.time, s.dt, s.goal is None))
        if s.qpos.size:
            out.append(s.contacts())
            out.append(
                [
                    s.body(n).pos.tobytes() + s.body(n).linvel.tobytes() + s.body(n).xmat.tobytes()
                    for n in s.names["bodies"]
                ]
            )
    out.append((action.dtype.str, action.shape, action.tobytes(), action.flags.writeable, state is previous[0]))
    previous[0] = next_state
    return out


@pytest.mark.parametrize(
    "task",
    [
        "lunarlander-land",  # no MuJoCo model, float32 observations
        "fetch-reach",  # a dict observation and a mocap body
        "adroit-door",  # the door's pose is randomised in the model at reset
    ],
)
def test_replayed_states_are_bit_identical_to_live_ones(task, tmp_path):
    from rewardsmith.reward.wrappers import ApplyReward
    from rewardsmith.task import make_scorer
    from rewardsmith.workers.replay import Replayer
    from rewardsmith.workers.trajectories import TrajectoryRecorder

    spec = load_task(task)
    live: list = []
    previous: list = [None]

    def reward(state, action, next_state):
        live.append(_fingerprint(state, action, next_state, previous))
        return 0.0, {}

    env = ApplyReward(make_env(spec), reward_fn=reward, scorer=make_scorer(spec))
    recorder = TrajectoryRecorder(env)
    for e in range(2):
        env.reset(seed=e)
        env.action_space.seed(e)
        recorder.start(env.state)
        for _ in range(25):
            action = env.action_space.sample()
            *_, terminated, truncated, _ = env.step(action)
            recorder.step(action, env.state)
            if terminated or truncated:
                break
        recorder.finish(0.0)
    env.close()
    recorder.save(tmp_path / "trajectories.npz")
    fresh = make_env(spec)
    replayer = Replayer(fresh)
    fresh.close()
    previous[0] = None
    replayed = [
        _fingerprint(*t, previous)
        for e in load_episodes(tmp_path / "trajectories.npz")
        for t in replayer.transitions(e)
    ]
    assert len(replayed) == len(live) > 0
    for t, (here, there) in enumerate(zip(live, replayed)):
        assert here == there, t


def test_an_archive_with_no_policy_better_than_random_passes_with_a_note_whatever_the_reward():
    """mountaincar's first rung: every trained policy sits still (fitness near 0), random actions swing higher
    (0.48). A reward with an effort cost ranks the timid policies first, against fitness; with nothing in the archive
    better than random there is no verdict. The same reward is judged once one policy beats random."""
    from rewardsmith.search.calibration import MARGIN_SE
    from rewardsmith.stages.screen import LEARNED_Z, RANDOM_LABEL, nothing_beats_random, varies_per_step

    rng = np.random.default_rng(1)
    random = [{"label": RANDOM_LABEL, "fitness": f} for f in rng.normal(0.48, 0.05, 5)]
    timid = [{"label": f"1.{k}", "fitness": f} for k in range(4) for f in rng.normal(0.08, 0.02, 5)]
    rows = [{**d, "episode": i, "steps": 999, "return": -10.0 * d["fitness"]} for i, d in enumerate(random + timid)]
    report = judge(rows, min_signal=0.0)  # as the first cut judges: every verdict counting
    assert report.passed and report.accuracy is None
    assert "no archived policy does better than random actions" in report.message and RANDOM_LABEL in report.message
    learned = [{**d, "label": "2.0", "fitness": d["fitness"] + 0.9} for d in rows if d["label"] == "1.0"]
    judged = judge([*rows, *[{**d, "return": -10.0 * d["fitness"]} for d in learned]], min_signal=0.0)
    assert not judged.passed and judged.accuracy is not None  # one policy beats random: the backward order is judged
    assert nothing_beats_random(timid) is None  # no random episodes to compare with: the gate does not apply
    bench_random = [{**d, "label": f"run/{RANDOM_LABEL}"} for d in random]  # a bench's per-run random archives
    assert nothing_beats_random([*bench_random, *timid]) is not None
    assert LEARNED_Z == MARGIN_SE  # the bar of a run's "no candidate learned enough to be judged"
    unjudged = [{**d, "return": None} for d in rows]  # a no-verdict row as a bench records it: no returns
    assert varies_per_step(unjudged) is None  # so a critic's warning is kept, not dropped on NaN


def test_a_stay_alive_reward_does_not_pass_as_task_aligned(cheetah, tmp_path):
    """An alive bonus with a small task term ranks the archived episodes right (a fixed-length env: the bonus adds
    the same to each), yet its return is explained by survival time; the screen says so, in words a designer can
    act on. The task term alone passes."""
    spec, files = cheetah
    alive = reward_file(
        tmp_path / "alive",
        "    v = float(next_state.body('torso').linvel[0])\n    return 1.0 + 0.01 * v, {'alive': 1.0, 'v': 0.01 * v}\n",
    )
    report = screen(spec, alive, tmp_path / "alive", files, executor=EXECUTOR)
    assert not report.passed and report.accuracy == 1.0  # the order is right: the old screen passed it
    assert report.message.startswith("your reward's return is explained by survival time")
    assert "same length" in report.message and "Fix the reward" in report.repair_text()
    aligned = reward_file(
        tmp_path / "v", "    v = float(next_state.body('torso').linvel[0])\n    return 1.0 + v, {'v': v}\n"
    )
    assert screen(spec, aligned, tmp_path / "v", files, executor=EXECUTOR).passed


def test_survival_is_the_task_where_fitness_follows_episode_length():
    from rewardsmith.stages.screen import survival

    rows = [
        {"label": f"1.{k}", "episode": 0, "steps": steps, "fitness": fitness, "return": 1.0 * steps}
        for k, (steps, fitness) in enumerate([(10, 0.1), (50, 0.5), (200, 2.0), (1000, 9.0), (30, 0.4)])
    ]
    assert survival(rows) is None  # balancing: the fitness is the time up, so an alive reward is aligned
    unrelated = [{**r, "fitness": f} for r, f in zip(rows, [3.0, 0.1, 2.0, 0.5, 1.0])]
    message = survival(unrelated)
    assert message is not None and "not the task's fitness" in message
    assert not judge(unrelated).passed and judge(unrelated).message.startswith("your reward's return is explained")
    shaped = [{**r, "return": r["steps"] * (1.0 + r["fitness"])} for r in unrelated]
    assert survival(shaped) is None  # the per-step mean moves with the task's progress
    assert survival([{k: v for k, v in r.items() if k != "steps"} for r in unrelated]) is None  # no lengths: no verdict


def test_a_time_cost_is_the_task_where_the_episode_ends_at_the_goal():
    """acrobot-swing-up (round 24): the episode ends at the bar, so the sooner the better and the fitness falls with
    episode length; a -1-a-step cost then pays for reaching the goal sooner (it was rejected as 'survival'), while
    an alive bonus there pays for never reaching it (the accuracy rule rejects it)."""
    from rewardsmith.stages.screen import survival

    reached = [(60, 0.94), (90, 0.91), (150, 0.85), (300, 0.7), (500, 0.3), (500, 0.2)]
    cost = [
        {"label": f"1.{k}", "episode": 0, "steps": steps, "fitness": fitness, "return": -1.0 * steps}
        for k, (steps, fitness) in enumerate(reached)
    ]
    assert survival(cost) is None and judge(cost, min_signal=0).passed
    alive = [{**r, "return": 1.0 * r["steps"]} for r in cost]  # pays for never reaching the goal
    assert survival(alive) is None  # length explains the fitness: the accuracy rule judges, and rejects
    assert judge(alive, min_signal=0).message.startswith("your reward prefers the trajectories with lower fitness")
    unrelated = [{**r, "fitness": f} for r, f in zip(cost, [0.3, 0.94, 0.2, 0.91, 0.7, 0.85])]
    message = survival(unrelated)  # the cost pays for ending sooner, and length does not explain this fitness
    assert message is not None and "pays for ending the episode sooner" in message and "per-step cost" in message


def test_a_time_cost_stands_aside_where_the_env_ends_only_at_the_goal_even_when_no_episode_got_there():
    """mountaincar-discrete-reach-flag (round 25, held out): at the first rung no episode reaches the flag, so every
    one lasts the 200 steps and episode length explains nothing; the stay-alive check rejected all 5 good rewards
    with a -1-a-step cost ("pays for ending the episode sooner"), which on a task that ends only at the goal is
    what a time cost is for. There it stands aside for a cost (the accuracy rule judges); an alive bonus is judged
    as before, and so is a cost where the env can also end on a failure."""
    from rewardsmith.stages.screen import survival

    heights = [0.05, 0.12, 0.2, 0.31, 0.4]
    cost = [
        {"label": f"1.{k}", "episode": 0, "steps": 200, "fitness": h, "return": 200 * (-1.0 + 0.01 * h)}
        for k, h in enumerate(heights)
    ]
    assert survival(cost) is not None  # an env that may end on a failure: the cost could pay for failing sooner
    assert survival(cost, ends_at_goal=True) is None and judge(cost, min_signal=0, ends_at_goal=True).passed
    alive = [{**r, "return": 200 * (1.0 + 0.01 * r["fitness"])} for r in cost]
    assert "pays for staying in the episode" in survival(alive, ends_at_goal=True)


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("mountaincar-discrete-reach-flag", True),
        ("mountaincar-reach-flag", True),
        ("acrobot-swing-up", True),
        ("bipedalwalker-walk", False),  # its course's end is a goal, but a fall ends it too
        ("lunarlander-land", False),
        ("pendulum-swing-up", False),
        ("hopper-hop", False),
    ],
)
def test_which_envs_end_only_at_the_goal(task: str, expected: bool) -> None:
    from rewardsmith.stages.env_facts import env_facts

    assert env_facts(load_task(task)).ends_only_at_goal is expected
