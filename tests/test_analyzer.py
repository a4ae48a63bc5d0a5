"""The analyzer, from hand-made candidate folders: every field, the hacking rule, corrupt lines, feedback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardsmith.llm import get_model
from rewardsmith.stages.analyzer import ANALYSIS_FILE, analyze
from rewardsmith.stages.feedback import feedback_text
from rewardsmith.stages.reflection import end_reason
from rewardsmith.task import TaskSpec
from rewardsmith.workers.executor import LocalExecutor

EXECUTOR = LocalExecutor(workers=2)
"""The worker pool of this module's stage calls (a stage takes its executor explicitly)."""

SPEC = TaskSpec(name="hop", env="Hopper-v5", description="Hop forward as fast as possible without falling.",
                fitness={"scorer": "scorers:ForwardProgress"})


def state_stats(z: float, x: float, knee: float) -> dict:
    return {"torso.x": {"mean": x / 2, "min": 0.0, "max": x, "last": x},
            "torso.y": {"mean": 0.0, "min": 0.0, "max": 0.0, "last": 0.0},
            "torso.z": {"mean": z, "min": z - 0.1, "max": z + 0.1, "last": z},
            "knee.qpos": {"mean": knee, "min": knee - 0.2, "max": knee + 0.2, "last": knee}}


def write_candidate(folder: Path, *, fitness: list[float], returns: list[float], episodes: list[tuple],
                    speed: list[float] | None = None, corrupt: bool = False) -> Path:
    """A candidate folder as the train worker writes it. episodes: (fitness, return, length, termination, z)."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    speed = speed or [0.1 * i for i in range(len(fitness) * 2)]
    for i, value in enumerate(speed):
        lines.append({"kind": "train", "timesteps": 500 * (i + 1), "fitness": 0.0, "return": 1.0,
                      "components": {"speed": value, "alive": 1.0}, "episodes": 3})
    for i, (f, r) in enumerate(zip(fitness, returns)):
        lines.append({"kind": "eval", "timesteps": 1000 * (i + 1), "fitness": f, "return": r, "success_rate": 0.0,
                      "ep_len": 100.0, "components": {}, "episodes": 2})
    text = "".join(json.dumps(line) + "\n" for line in lines)
    if corrupt:
        text = text.replace("\n", '\n{"kind": "train", "timest\n', 1)
    (folder / "metrics.jsonl").write_text(text)
    rows = "".join(
        json.dumps({"episode": i, "fitness": f, "return": r, "length": n, "termination": t, "success": False,
                    "components": {}, "state_stats": state_stats(z, 2.0 * f, 0.3 * i)}) + "\n"
        for i, (f, r, n, t, z) in enumerate(episodes))
    (folder / "eval").mkdir(exist_ok=True)  # the evaluation worker's folder
    (folder / "eval" / "eval_episodes.jsonl").write_text(rows)
    (folder / "summary.json").write_text(json.dumps({"status": "ok", "fitness": fitness[-1], "success_rate": 0.0,
                                                     "ep_len": 120.0, "return": returns[-1]}))
    (folder / "eval" / "evaluation.json").write_text(json.dumps({
        "fitness": [e[0] for e in episodes], "success": [False] * len(episodes), "lengths": [e[2] for e in episodes],
        "ends": ["time limit" if e[3] == "truncated" else "terminated" for e in episodes],
        "fitness_mean": fitness[-1], "success_rate": 0.0}))
    return folder


ALIGNED_EPISODES = [(1.0, 100.0, 1000, "truncated", 1.2), (0.5, 60.0, 400, "terminated", 0.9),
                    (0.2, 30.0, 150, "terminated", 0.7), (0.8, 90.0, 1000, "truncated", 1.1)]


def test_every_field_from_an_aligned_candidate(tmp_path):
    folder = write_candidate(tmp_path / "c", fitness=[0.1, 0.4, 0.9], returns=[10.0, 40.0, 90.0],
                             episodes=ALIGNED_EPISODES)
    a = analyze(SPEC, folder, model=None, executor=EXECUTOR, env_description=None)
    assert json.loads((folder / ANALYSIS_FILE).read_text())["feedback"] == a["feedback"]
    assert a["fitness_curve"] == [(1000, 0.1), (2000, 0.4), (3000, 0.9)]
    speed = a["components"]["speed"]
    assert len(speed["points"]) == 6 and speed["points"][0] == (500, 0.0) and speed["points"][-1][0] == 3000
    assert (speed["min"], speed["max"]) == (0.0, pytest.approx(0.5))
    assert a["termination"] == {"episodes": 4, "terminated": 2, "truncated": 2, "terminated_fraction": 0.5,
                                "mean_length": 637.5}
    best, worst = a["episodes"]["best"], a["episodes"]["worst"]
    assert (best["fitness"], worst["fitness"], worst["termination"]) == (1.0, 0.2, "terminated")
    state = a["episodes"]["state"]
    assert list(state)[:2] == ["torso.x", "torso.z"] and "torso.y" not in state  # a constant row is left out
    assert (state["torso.z"]["best"]["mean"], state["torso.z"]["worst"]["mean"]) == (1.2, 0.7)
    assert a["return_fitness_correlation"]["rho"] > 0.9 and a["return_fitness_correlation"]["episodes"] == 4
    assert not a["reward_hacking"]["flag"] and a["reward_hacking"]["reason"] == ""
    assert {f["code"] for f in a["flags"]} == {"constant-component", "early-termination"}
    assert a["problems"] == [] and a["final"]["fitness"] == 0.9
    for expected in ("during training, as reported by the training worker (untrusted):\n  fitness: 0.1 @ 1000, 0.4 @ 2000, 0.9 @ 3000",
                     "speed: [0, 0.1, 0.2, 0.3, 0.4, 0.5]", "2 of 4 (50%) ended by termination",
                     "torso.z: mean 1.2 vs 0.7", "Spearman rho = 1.00", "component alive stayed at 1",
                     "  episode length (steps): 100 @ 1000"):
        assert expected in a["feedback"]
    assert len(a["feedback"].splitlines()) <= 70


def test_return_up_while_fitness_flat_is_flagged_as_hacking(tmp_path):
    folder = write_candidate(tmp_path / "c", fitness=[0.3, 0.31, 0.3], returns=[10.0, 80.0, 200.0],
                             episodes=[(0.3, 50.0, 1000, "truncated", 1.0), (0.2, 80.0, 1000, "truncated", 1.0),
                                       (0.1, 120.0, 1000, "truncated", 1.0)])
    a = analyze(SPEC, folder, model=None, executor=EXECUTOR, env_description=None)
    assert a["reward_hacking"]["flag"]
    reason = a["reward_hacking"]["reason"]
    assert "over 3 evaluations during training the return rose from 10 to 200 while fitness went from 0.3 to 0.3" in reason
    assert "Spearman" not in reason  # 3 episodes are too few to judge the correlation
    assert {f["code"] for f in a["flags"]} >= {"reward-hacking", "no-progress"}
    assert "possible reward hacking" in a["feedback"]


def planted_pairs(folder: Path, pairs: list[list[float]]) -> None:
    """Per-episode (return, fitness) pairs on the learning-curve evaluations, as the training worker logs them."""
    lines = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    evals = [line for line in lines if line["kind"] == "eval"]
    for k, line in enumerate(evals):
        line["pairs"] = pairs[k::len(evals)]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_hacking_warning_holds_back_on_noise(tmp_path):
    """The issue's case: five final episodes, fitness -0.00323 vs -0.00373 and return 18.1 vs 18.5."""
    noise = [(-0.00323, 18.1, 1000, "truncated", 1.0), (-0.0034, 18.2, 1000, "truncated", 1.0),
             (-0.0035, 18.3, 1000, "truncated", 1.0), (-0.0036, 18.4, 1000, "truncated", 1.0),
             (-0.00373, 18.5, 1000, "truncated", 1.0)]
    folder = write_candidate(tmp_path / "c", fitness=[-0.0035, -0.0034, -0.0035], returns=[18.0, 18.2, 18.3],
                             episodes=noise)
    a = analyze(SPEC, folder, model=None, executor=EXECUTOR, env_description=None)
    assert a["return_fitness_correlation"]["rho"] == pytest.approx(-1.0)  # perfectly anti-ranked, yet noise
    assert not a["reward_hacking"]["flag"] and "reward-hacking" not in {f["code"] for f in a["flags"]}
    assert "only 5 evaluation episodes of this candidate (need 10)" in a["feedback"] and "possible reward hacking" not in a["feedback"]
    planted_pairs(folder, [[18.0 + 0.1 * i, -0.0035 + 0.00001 * ((-1) ** i)] for i in range(20)])
    a = analyze(SPEC, folder, model=None, executor=EXECUTOR, env_description=None)  # 25 episodes now, but fitness spans far less than the minimum spread
    assert a["return_fitness_correlation"]["episodes"] == 25 and not a["reward_hacking"]["flag"]
    assert "fitness spans only" in a["feedback"]


def test_hacking_warning_fires_on_a_planted_case(tmp_path):
    """Higher return, clearly lower fitness, enough episodes: the statistic and the sample size are stated."""
    folder = write_candidate(tmp_path / "c", fitness=[0.5, 0.4, 0.45], returns=[10.0, 12.0, 11.0],
                             episodes=ALIGNED_EPISODES[:2])
    planted_pairs(folder, [[10.0 + i, 1.0 - 0.05 * i + 0.02 * ((-1) ** i)] for i in range(18)])
    a = analyze(SPEC, folder, model=None, executor=EXECUTOR, env_description=None)
    assert a["reward_hacking"]["flag"]
    reason = a["reward_hacking"]["reason"]
    assert "across 20 evaluation episodes" in reason and "Spearman rho = -" in reason
    assert "reward-hacking" in {f["code"] for f in a["flags"]}


def test_end_reasons_are_named_for_a_fall_and_the_time_limit(tmp_path):
    from rewardsmith.task import load_task

    hop = load_task("hopper-hop")
    fall = {"termination": "terminated", "length": 87, "state_stats": {"rootz.qpos": {"last": 0.62},
                                                                       "rooty.qpos": {"last": 0.05}}}
    tilt = {"termination": "terminated", "length": 40, "state_stats": {"rootz.qpos": {"last": 1.1},
                                                                       "rooty.qpos": {"last": -0.31}}}
    assert end_reason(hop, fall) == "terminated at step 87: height `rootz` = 0.62 left [0.7, inf]"
    assert end_reason(hop, tilt) == "terminated at step 40: pitch `rooty` = -0.31 left [-0.2, 0.2]"
    assert end_reason(hop, {"termination": "truncated", "length": 1000}) == "time limit (1000 steps)"
    ant = load_task("ant-run")
    flipped = {"termination": "terminated", "length": 12, "state_stats": {"torso.z": {"last": 1.3}}}
    assert end_reason(ant, flipped) == "terminated at step 12: height of `torso` = 1.3 left [0.2, 1]"
    folder = write_candidate(tmp_path / "c", fitness=[0.1, 0.4], returns=[1.0, 2.0], episodes=ALIGNED_EPISODES)
    feedback = analyze(SPEC, folder, model=None, executor=EXECUTOR, env_description=None)["feedback"]
    assert "ended: time limit (1000 steps) (x2)" in feedback


def test_return_up_with_fitness_up_over_training_alone_is_not_hacking(tmp_path):
    folder = write_candidate(tmp_path / "c", fitness=[0.1, 0.3, 0.6], returns=[10.0, 80.0, 200.0],
                             episodes=ALIGNED_EPISODES[:2])
    a = analyze(SPEC, folder, model=None, executor=EXECUTOR, env_description=None)
    assert a["return_fitness_correlation"]["rho"] is None  # fewer than 3 episodes
    assert not a["reward_hacking"]["flag"] and "no-progress" not in {f["code"] for f in a["flags"]}


def test_corrupt_metrics_line_and_missing_files_are_tolerated(tmp_path):
    folder = write_candidate(tmp_path / "c", fitness=[0.1, 0.4], returns=[1.0, 2.0], episodes=ALIGNED_EPISODES,
                             corrupt=True)
    a = analyze(SPEC, folder, model=None, executor=EXECUTOR, env_description=None)
    assert a["fitness_curve"] == [(1000, 0.1), (2000, 0.4)]
    assert len(a["problems"]) == 1 and "metrics.jsonl:2: corrupt line skipped" in a["problems"][0]
    (tmp_path / "empty_cand").mkdir()  # the worker died before writing anything
    empty = analyze(SPEC, tmp_path / "empty_cand", model=None, executor=EXECUTOR, env_description=None)
    assert empty["fitness_curve"] == [] and empty["components"] == {} and empty["episodes"] == {}
    assert [p.split(":")[0] for p in empty["problems"]] == ["metrics.jsonl", "eval/eval_episodes.jsonl",
                                                            "eval/evaluation.json"]
    assert "missing data" in empty["feedback"]


def test_feedback_changes_with_the_data(tmp_path):
    one = analyze(SPEC, write_candidate(tmp_path / "a", fitness=[0.1, 0.4, 0.9], returns=[1.0, 2.0, 3.0],
                                        episodes=ALIGNED_EPISODES), model=None, executor=EXECUTOR, env_description=None)["feedback"]
    two = analyze(SPEC, write_candidate(tmp_path / "b", fitness=[0.2, 0.5, 0.7], returns=[1.0, 2.0, 3.0],
                                        episodes=ALIGNED_EPISODES, speed=[3.0, 2.0, 1.0, 0.5]), model=None, executor=EXECUTOR, env_description=None)["feedback"]
    assert one != two
    assert "speed: [3, 2, 1, 0.5]" in two and "0.7 @ 3000" in two


def test_episode_lengths_read_as_whole_steps(tmp_path):
    """The designer read `episode length (steps): 1e+03 @ 4096` for a swimmer's 1,000-step episodes."""
    a = analyze(SPEC, write_candidate(tmp_path / "c", fitness=[0.1, 0.4], returns=[1.0, 2.0], episodes=ALIGNED_EPISODES),
                model=None, executor=EXECUTOR, env_description=None)
    text = feedback_text({**a, "length_curve": [(2048, 1000.0), (4096, 1000.0)]})
    assert "episode length (steps): 1000 @ 2048, 1000 @ 4096" in text and "1e+03" not in text


def test_llm_summary_is_appended_with_its_tokens(tmp_path):
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"role": "analyzer", "content": "1. The hopper falls: reward torso height."}) + "\n")
    folder = write_candidate(tmp_path / "c", fitness=[0.1, 0.4], returns=[1.0, 2.0], episodes=ALIGNED_EPISODES)
    a = analyze(SPEC, folder, model=get_model(f"scripted:{script}"), llm_summary=True, executor=EXECUTOR,
                env_description="ENV")
    assert a["llm_summary"] == "1. The hopper falls: reward torso height."
    assert a["feedback"].endswith("analysis of likely causes:\n1. The hopper falls: reward torso height.")
    assert a["llm"]["tokens"] > 0 and json.loads((folder / ANALYSIS_FILE).read_text())["llm"]["tokens"] > 0


# -- the reward replayed on the evaluation episodes (sandboxed `replay` worker) --------------------------------

SPEED_REWARD = ("def compute_reward(state, action, next_state):\n"
                "    v = float(next_state.body('torso').linvel[0])\n    return v + 1.0, {'speed': v, 'alive': 1.0}\n")


@pytest.fixture(scope="module")
def cheetah_spec(tmp_path_factory):
    from rewardsmith.task import read_task
    from tests.conftest import make_tiny_spec

    return read_task(make_tiny_spec(tmp_path_factory.mktemp("spec"), "halfcheetah-run"))


def replay_candidate(folder: Path, spec, fitness: list[float], training_pairs: list[list[float]],
                     reward: str = SPEED_REWARD, speeds: list[float] | None = None) -> Path:
    """A trained HalfCheetah candidate whose recorded evaluation episode i runs at `speeds[i]` (default 0.2 * i)
    m/s for 20 steps, with the trusted fitness `fitness[i]`, and whose training worker reported `training_pairs`
    (return, fitness)."""
    from conftest import constant_speed_episodes

    from rewardsmith.workers.trajectories import save_episodes

    (folder / "eval").mkdir(parents=True)
    (folder / "reward.py").write_text(reward)
    speeds = [0.2 * i for i in range(len(fitness))] if speeds is None else speeds
    save_episodes(folder / "eval" / "trajectories.npz", constant_speed_episodes(spec, speeds, fitness))
    (folder / "eval" / "eval_episodes.jsonl").write_text("".join(
        json.dumps({"episode": i, "fitness": f, "success": False, "length": 20, "termination": "truncated"}) + "\n"
        for i, f in enumerate(fitness)))
    (folder / "eval" / "evaluation.json").write_text(json.dumps({
        "fitness": fitness, "success": [False] * len(fitness), "lengths": [20] * len(fitness),
        "ends": ["time limit"] * len(fitness), "fitness_mean": sum(fitness) / len(fitness), "success_rate": 0.0}))
    lines = [{"kind": "eval", "timesteps": 1000 * (k + 1), "fitness": 0.5, "return": 10.0, "ep_len": 20.0,
              "episodes": 2, "pairs": training_pairs[k::3]} for k in range(3)]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


ALIGNED_PAIRS = [[float(i), 0.1 * i] for i in range(12)]
ANTI_PAIRS = [[float(i), 1.0 - 0.1 * i] for i in range(12)]


def test_hacking_check_pairs_the_replayed_return_with_the_trusted_fitness(cheetah_spec, tmp_path):
    """Planted: the reward's return on the evaluation episodes rises where their fitness falls -> flags, though
    the training worker reported aligned pairs; near-equal fitness -> no flag, though it reported anti-aligned."""
    hacked = replay_candidate(tmp_path / "hacked", cheetah_spec, [1.0 - 0.1 * i for i in range(12)], ALIGNED_PAIRS)
    a = analyze(cheetah_spec, hacked, model=None, executor=EXECUTOR, env_description=None)
    assert a["replay"]["status"] == "ok" and len(a["replay"]["episodes"]) == 12
    returns = [e["return"] for e in a["replay"]["episodes"]]
    assert returns == pytest.approx([20 * (0.2 * i + 1.0) for i in range(12)])  # 20 steps of speed + 1
    assert a["reward_hacking"]["flag"] and ("across 12 evaluation episodes of this candidate (fitness from -0.1 to 1; returns computed "
                                           "by your reward on the recorded evaluation episodes)") in a["reward_hacking"]["reason"]
    assert a["return_fitness_correlation"]["rho"] == pytest.approx(-1.0)
    assert "returns computed by your reward on the recorded evaluation episodes" in a["feedback"]
    assert a["final"]["return"] == pytest.approx(sum(returns) / 12)
    assert "step traces: state quantities, then your reward's components" in a["feedback"]
    header = next(line for line in a["traces"] if line.startswith("  step |"))
    assert header.endswith(" | speed | alive")
    best = a["traces"][a["traces"].index("best evaluation episode (fitness 1), every ~2 steps:") + 2]
    assert best == "  0 | - | -"  # episode 0 stands still: no state column moves, and step 0 has no reward

    noise = [-0.0035 + 0.00001 * (-1) ** i for i in range(12)]
    honest = replay_candidate(tmp_path / "noise", cheetah_spec, noise, ANTI_PAIRS)
    a = analyze(cheetah_spec, honest, model=None, executor=EXECUTOR, env_description=None)
    assert a["replay"]["status"] == "ok" and a["return_fitness_correlation"]["episodes"] == 12
    assert not a["reward_hacking"]["flag"] and "fitness spans only" in " ".join(a["reward_hacking"]["held_back"])


def test_the_replay_is_a_job_of_the_given_executor_in_its_quick_lane(cheetah_spec, tmp_path):
    """The analyzer's replay goes through the run's executor (its lanes, or Ray), never around it."""
    from rewardsmith.workers.job import lane

    class Recording(LocalExecutor):
        def __init__(self) -> None:
            super().__init__(workers=1)
            self.lanes: list[tuple[str, str]] = []

        def submit(self, job, on_progress=None):
            self.lanes.append((job.mode, lane(job)))
            return super().submit(job, on_progress)

    executor = Recording()
    try:
        folder = replay_candidate(tmp_path / "c", cheetah_spec, [0.1 * i for i in range(12)], ALIGNED_PAIRS)
        a = analyze(cheetah_spec, folder, model=None, executor=executor, env_description=None)
    finally:
        executor.shutdown()
    assert a["replay"]["status"] == "ok" and executor.lanes == [("replay", "quick")]


def test_a_failed_replay_falls_back_to_the_training_workers_pairs_and_says_so(cheetah_spec, tmp_path):
    crash = "def compute_reward(state, action, next_state):\n    return 1.0 / 0.0, {}\n"
    folder = replay_candidate(tmp_path / "c", cheetah_spec, [0.5] * 12, ANTI_PAIRS, reward=crash)
    a = analyze(cheetah_spec, folder, model=None, executor=EXECUTOR, env_description=None)
    assert a["replay"]["status"] == "failed" and "ZeroDivisionError" in a["replay"]["reason"]
    assert a["return_fitness_correlation"]["returns"] == "returns as reported by the training worker"
    assert a["reward_hacking"]["flag"]  # from the training worker's anti-aligned reports, as before
    assert "returns as reported by the training worker)" in a["reward_hacking"]["reason"]
    assert "your reward could not be replayed on the recorded evaluation episodes" in a["feedback"]
    assert "step traces: state quantities" not in a["feedback"]
    assert all(" | speed" not in line for line in a["traces"]) and "ended: time limit" in a["feedback"]


def test_malformed_replay_output_gives_no_components_and_no_crash(cheetah_spec, tmp_path, monkeypatch):
    """The worker ran the candidate's code: a replay.json that does not check out is not used at all."""
    import rewardsmith.workers.run as run

    real = run.read_json_file

    def forged(path, *args, **kwargs):
        if Path(path).name == "replay.json":
            return {"episodes": [{"episode": 0, "steps": 20, "return": 1e9, "components": {"speed": "fast"},
                                  "trace": []}] * 12}
        return real(path, *args, **kwargs)

    monkeypatch.setattr(run, "read_json_file", forged)
    folder = replay_candidate(tmp_path / "c", cheetah_spec, [1.0 - 0.1 * i for i in range(12)], ALIGNED_PAIRS)
    a = analyze(cheetah_spec, folder, model=None, executor=EXECUTOR, env_description=None)
    assert a["replay"]["status"] == "failed" and "malformed" in a["replay"]["reason"]
    assert a["replay"]["episodes"] == [] and a["final"]["return"] is None
    assert not a["reward_hacking"]["flag"]  # the training worker's aligned reports
    assert all(" | speed" not in line for line in a["traces"]) and a["traces"]


def test_component_columns_follow_the_state_and_fit_the_budget(cheetah_spec, tmp_path):
    """Given component values, the trace adds one column per component (at most TRACE_COMPONENTS, '-' where a
    step has none) and still shrinks to the character budget (the local model's is 600)."""
    from rewardsmith.stages.reflection import TRACE_COMPONENTS, read_names, step_trace, trace_steps
    from rewardsmith.workers.trajectories import load_episodes

    folder = replay_candidate(tmp_path / "c", cheetah_spec, [0.1 * i for i in range(4)], ALIGNED_PAIRS)
    episode = load_episodes(folder / "eval" / "trajectories.npz")[3]
    steps = trace_steps(episode)
    assert steps[0] == 0 and steps[-1] == episode.steps and len(steps) == 10
    parts = {t: {f"term_{k}": 0.5 * k + t for k in range(9)} for t in steps[1:]}
    names = read_names(cheetah_spec, SPEED_REWARD)
    rows = step_trace(cheetah_spec, episode, 0.05, names, 1600, parts)
    assert rows[0] == "step | torso.x | " + " | ".join(f"term_{k}" for k in range(TRACE_COMPONENTS))
    assert rows[1].startswith("0 | 0 | - | -") and rows[2].endswith(" | 4.5") and len(rows) == 11
    small = step_trace(cheetah_spec, episode, 0.05, names, 300, parts)
    assert len("\n".join(small)) <= 300 and small[0] == rows[0] and small[-1] == rows[-1] and len(small) < 11


# -- the hacking check over the run's evaluation episodes: other trained candidates' archives too -------------


def plant_run(root: Path, spec, fitness_of, statuses: dict[int, str] | None = None, reward: str = SPEED_REWARD,
              speed_of=None) -> Path:
    """A run folder with candidates 1.1-1.5, each with 3 recorded evaluation episodes of 20 steps; episode k of
    candidate j runs at speed_of(n) m/s (default 0.1 * n), n = 3 * (j - 1) + k, with the trusted fitness
    fitness_of(n). `statuses` overrides a candidate's recorded status (default "trained")."""
    from rewardsmith.run_folder.folder import RunFolder
    from rewardsmith.run_folder.records import CandidateRecord

    folder = RunFolder(root)
    speed_of = speed_of or (lambda n: 0.1 * n)
    for j in range(1, 6):
        numbers = [3 * (j - 1) + k for k in range(3)]
        fitness = [fitness_of(n) for n in numbers]
        replay_candidate(folder.cand_dir(1, j), spec, fitness, ALIGNED_PAIRS, reward, [speed_of(n) for n in numbers])
        status = (statuses or {}).get(j, "trained")
        folder.save_candidate(CandidateRecord(id=f"1.{j}", iteration=1, index=j, status=status,
                                              fitness=sum(fitness) / 3, episodes=3))
    return root


def test_hacking_check_uses_every_trained_candidates_evaluation_episodes(cheetah_spec, tmp_path):
    """Three episodes per candidate are too few alone; over the run's 15, a reward whose return rises where the
    trusted fitness falls is flagged, and the analysis says over how many episodes of how many candidates."""
    root = plant_run(tmp_path / "anti", cheetah_spec, lambda n: 1.0 - 0.05 * n)
    a = analyze(cheetah_spec, root / "iter_1" / "cand_5", model=None, executor=EXECUTOR, env_description=None)
    assert a["replay"]["status"] == "ok" and "others_failed" not in a["replay"]
    assert a["replay"]["candidates"] == [{"candidate": f"1.{j}", "episodes": 3} for j in (5, 4, 3, 2, 1)]
    corr = a["return_fitness_correlation"]
    assert corr["episodes"] == 15 and corr["candidates"] == 5 and corr["rho"] == pytest.approx(-1.0)
    assert a["reward_hacking"]["flag"]
    assert "across 15 evaluation episodes of 5 candidates (fitness from 0.3 to 1; returns computed by your reward" \
        in a["reward_hacking"]["reason"]
    assert "Spearman rho = -1.00 over 15 evaluation episodes of 5 candidates" in a["feedback"]
    # the step traces stay on the candidate's own best and worst episodes, with its own fitness
    heads = [line for line in a["traces"] if "evaluation episode (fitness" in line]
    assert heads == ["best evaluation episode (fitness 0.4), every ~2 steps:",
                     "worst evaluation episode (fitness 0.3), every ~2 steps:"]
    assert a["final"]["return"] == pytest.approx(20 * (0.1 * 13 + 1.0))  # its own three episodes' mean

    root = plant_run(tmp_path / "aligned", cheetah_spec, lambda n: 0.05 * n)
    a = analyze(cheetah_spec, root / "iter_1" / "cand_5", model=None, executor=EXECUTOR, env_description=None)
    assert a["return_fitness_correlation"]["rho"] == pytest.approx(1.0)
    assert a["return_fitness_correlation"]["episodes"] == 15 and not a["reward_hacking"]["flag"]
    assert "possible reward hacking" not in a["feedback"]


def test_only_candidates_recorded_as_trained_and_with_matching_labels_are_used(cheetah_spec, tmp_path):
    """A candidate whose candidate.json is not "trained" (its folder may hold anything) is left out, and so is one
    whose evaluation.json does not label every archived episode; the first candidate with nothing else trained
    is judged on its own episodes."""
    root = plant_run(tmp_path / "run", cheetah_spec, lambda n: 1.0 - 0.05 * n, {2: "failed", 3: "designed"})
    evaluation = root / "iter_1" / "cand_4" / "eval" / "evaluation.json"
    data = json.loads(evaluation.read_text())
    evaluation.write_text(json.dumps({**data, "fitness": data["fitness"][:2]}))
    a = analyze(cheetah_spec, root / "iter_1" / "cand_5", model=None, executor=EXECUTOR, env_description=None)
    assert a["replay"]["candidates"] == [{"candidate": "1.5", "episodes": 3}, {"candidate": "1.1", "episodes": 3}]
    assert a["return_fitness_correlation"]["episodes"] == 6 and not a["reward_hacking"]["flag"]
    assert "only 6 evaluation episodes of 2 candidates (need 10)" in a["reward_hacking"]["held_back"]

    first = plant_run(tmp_path / "first", cheetah_spec, lambda n: 1.0 - 0.05 * n, {j: "designed" for j in (2, 3, 4, 5)})
    a = analyze(cheetah_spec, first / "iter_1" / "cand_1", model=None, executor=EXECUTOR, env_description=None)
    assert a["replay"]["status"] == "ok" and a["replay"]["candidates"] == [{"candidate": "1.1", "episodes": 3}]
    assert a["return_fitness_correlation"]["candidates"] == 1
    assert "over 3 evaluation episodes of this candidate" in a["feedback"]
    assert "step traces: state quantities, then your reward's components" in a["feedback"]


def test_the_replay_caps_episodes_and_steps_newest_first(cheetah_spec, tmp_path, monkeypatch):
    import rewardsmith.stages.run_replay as run_replay

    root = plant_run(tmp_path / "run", cheetah_spec, lambda n: 1.0 - 0.05 * n)
    monkeypatch.setattr(run_replay, "MAX_EPISODES", 7)
    a = analyze(cheetah_spec, root / "iter_1" / "cand_2", model=None, executor=EXECUTOR, env_description=None)
    assert a["replay"]["candidates"] == [{"candidate": "1.2", "episodes": 3}, {"candidate": "1.5", "episodes": 3},
                                         {"candidate": "1.4", "episodes": 1}]
    monkeypatch.setattr(run_replay, "MAX_EPISODES", 60)
    monkeypatch.setattr(run_replay, "MAX_STEPS", 3 * 20 + 50)  # its own 60 steps, then two whole 20-step episodes
    (root / "iter_1" / "cand_2" / "analysis.json").unlink()
    a = analyze(cheetah_spec, root / "iter_1" / "cand_2", model=None, executor=EXECUTOR, env_description=None)
    assert a["replay"]["candidates"] == [{"candidate": "1.2", "episodes": 3}, {"candidate": "1.5", "episodes": 2}]
    assert a["return_fitness_correlation"]["episodes"] == 5


def test_a_reward_that_fails_on_other_candidates_episodes_is_judged_on_its_own(cheetah_spec, tmp_path):
    fragile = ("def compute_reward(state, action, next_state):\n    v = float(next_state.body('torso').linvel[0])\n"
               "    if v > 0.95:\n        raise ValueError('too fast')\n    return v, {'speed': v}\n")
    root = plant_run(tmp_path / "run", cheetah_spec, lambda n: 1.0 - 0.05 * n, reward=fragile)
    a = analyze(cheetah_spec, root / "iter_1" / "cand_1", model=None, executor=EXECUTOR, env_description=None)  # its own episodes run at 0, 0.1 and 0.2 m/s
    assert a["replay"]["status"] == "ok" and "too fast" in a["replay"]["others_failed"]
    assert a["replay"]["candidates"] == [{"candidate": "1.1", "episodes": 3}]
    assert "your reward failed on other candidates' recorded episodes" in a["feedback"]
    assert "over 3 evaluation episodes of this candidate" in a["feedback"]
