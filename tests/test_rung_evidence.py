"""The default first rung per task family: the measured choice with its evidence, "no evidence" where nothing was
measured, the spec's override, and --rungs over both."""

from __future__ import annotations

from rewardsmith.config import RunConfig
from rewardsmith.search import rung_evidence, rungs
from rewardsmith.search.rung_evidence import (
    UNMEASURED_FRACTION,
    FirstRung,
    Replay,
    Rho,
    default_fractions,
    first_rung,
)
from rewardsmith.search.rungs import rung_fractions
from rewardsmith.task import load_task, task_family


def test_a_family_without_measurements_keeps_the_old_fraction_and_says_no_evidence() -> None:
    spec = load_task("metaworld-reach")
    family = task_family(spec)
    assert family not in rung_evidence.MEASURED
    choice = first_rung(spec)
    assert (choice.fraction, choice.how) == (UNMEASURED_FRACTION, "no evidence")
    assert "no evidence for the Meta-World manipulation family" in choice.describe()
    assert default_fractions(spec) == ([1 / 16, 0.25, 1.0], choice)


def test_a_measured_family_uses_its_fraction_and_names_both_pools(monkeypatch) -> None:
    spec = load_task("hopper-hop")
    chosen = Rho("pool-a", 16_384, 2, (0.8, 0.05), (0.3, 0.2))
    checked = Rho("pool-b", 16_384, 2, (0.7, 0.1), (0.1, 0.3))
    measured = FirstRung(0.25, "measured", task_family(spec), (chosen,), (checked,))
    monkeypatch.setitem(rung_evidence.MEASURED, task_family(spec), measured)
    fractions, why = default_fractions(spec)
    assert fractions == [0.25, 1.0] and why is measured  # the later 1/4 rung merges into the first
    text = why.describe()
    assert "chosen on rho +0.80 ± 0.05 over all (+0.30 ± 0.20 among good) on pool pool-a" in text
    assert "held out: rho +0.70 ± 0.10 over all" in text and "pool pool-b" in text
    assert why.as_dict()["how"] == "measured"


def test_the_mujoco_family_and_the_pendulum_carry_their_measured_evidence() -> None:
    """The records of bench/replay_strategies.py's choice: each chosen on tuning seeds and checked on held-out ones
    (never the same data), the family's saying that no fraction held on reacher and the longer rung was kept."""
    family = first_rung(load_task("halfcheetah-run-backward"))
    assert family.how == "measured" and family.fraction == 1 / 4 and family.task is None
    assert "no measured fraction held on reacher-reach" in family.describe()
    pendulum = first_rung(load_task("inverted-double-pendulum-balance"))
    assert pendulum.task == "inverted-double-pendulum-balance" and pendulum.fraction == 1 / 8
    for choice in (family, pendulum):
        assert choice.chosen_on and choice.checked_on
        tuned = {(m.pool, m.training_seeds) for m in choice.chosen_on if isinstance(m, Replay)}
        held = {(m.pool, m.training_seeds) for m in choice.checked_on if isinstance(m, Replay)}
        for pool, seeds in held:  # held-out seeds of a pool are never its tuning seeds
            assert all(not set(seeds) & set(s) for p, s in tuned if p == pool)
    assert first_rung(load_task("reacher-reach")) is family


def test_a_task_choice_beats_its_family_and_a_replay_holds_only_at_the_goal(monkeypatch) -> None:
    spec = load_task("hopper-hop")
    family = FirstRung(0.25, "measured", task_family(spec), (Rho("pool-a", 16_384, 2, (0.8, 0.05), (0.3, 0.2)),))
    tuned = Replay("pool-h", (0, 1), 20, 19, 18, 0.3)
    held_out = Replay("pool-h", (2, 3), 20, 17, 16, 0.3)  # 0.85 < HIT_MIN although above Eureka's
    own = FirstRung(1 / 16, "measured", task_family(spec), (tuned,), (held_out,), task="hopper-hop")
    monkeypatch.setitem(rung_evidence.MEASURED, task_family(spec), family)
    monkeypatch.setitem(rung_evidence.MEASURED_TASKS, "hopper-hop", own)
    assert first_rung(spec) is own and first_rung(load_task("hopper-hop")).task == "hopper-hop"
    assert tuned.holds and not held_out.holds and own.holds is False
    assert not Replay("p", (0,), 20, 19, 20, 0.3).holds  # below Eureka's on the same draws
    text = own.describe()
    assert text.startswith("first rung 0.0625 of the budget for hopper-hop, chosen on replayed: 19/20 good")
    assert "the held-out check FAILED" in text and "training seeds 2,3" in text
    brief = own.brief(2_048, 16_384, "iter_1/halving.json")  # the run's live line; halving.json keeps `text`
    assert brief == (
        "first rung 0.0625 of the budget (held at 2,048 steps, 0.125 of it: the shortest rung it trains) for hopper-hop,"
        " chosen on 1 measurement; its held-out check FAILED (pool-h: this rung does not predict the full budget"
        " there); the figures are in iter_1/halving.json"
    )
    assert family.brief() == "first rung 0.25 of the budget for the MuJoCo locomotion and control family, chosen on" \
        " 1 measurement; not checked on held-out data"


def test_the_spec_overrides_the_family_and_rungs_override_both() -> None:
    spec = load_task("hopper-hop")
    own = spec.model_copy(update={"search": spec.search.model_copy(update={"first_rung": 0.125})})
    assert default_fractions(own) == ([0.125, 0.25, 1.0], FirstRung(0.125, "spec", task_family(spec)))
    default = RunConfig(task="t", timesteps=16_384).resolve(own)
    assert rung_fractions(default, own)[0] == [0.125, 0.25, 1.0]
    explicit = RunConfig(task="t", timesteps=16_384, rungs=[0.5, 1.0]).resolve(own)
    fractions, why = rung_fractions(explicit, own)
    assert fractions == [0.5, 1.0] and why is not None and why.how == "--rungs"
    eureka = RunConfig(task="t", timesteps=16_384, strategy="eureka").resolve(own)
    assert rung_fractions(eureka, own) == ([1.0], None)


def test_a_first_rung_held_at_the_shortest_rung_says_so() -> None:
    """At a 4,096-step budget a 1/8 first rung is held at its 1,024-step minimum: the line must not claim 1/8."""
    line = FirstRung(0.125, "spec", "MuJoCo").describe(1024, 4096)
    assert "first rung 0.125 of the budget (held at 1,024 steps, 0.25 of it" in line
    assert "held" not in FirstRung(0.125, "spec", "MuJoCo").describe(25_000, 200_000)


def test_a_run_moves_its_first_cut_past_a_rung_its_calibration_found_blind() -> None:
    """lunarlander-land's calibration measured its 1/16 rung (12,500 steps) blind: a run at the spec's budget cuts
    first at 1/4, without the screen; a run at another budget (the record says nothing there), a task whose first
    rung sees, and one whose blind first rung is already 1/4 keep theirs."""
    lunar = load_task("lunarlander-land")
    assert lunar.fresh_calibration is not None and lunar.fresh_calibration.first_rung == 12_500
    at_spec = RunConfig(task="t").resolve(lunar)
    fractions, why = rung_fractions(at_spec, lunar)
    assert fractions == [0.25, 1.0] and why is not None and why.how == "past a blind rung"
    line = why.describe(50_000, at_spec.timesteps)
    assert line.startswith("first rung 0.25 of the budget: calibration found the first rung 0.0625 (12,500 steps) blind")
    assert "without the screen" in line and "lunarlander-land" in line
    assert rungs.blind_first_cut(lunar, 50_000, why) is not None  # the moved cut gets no screen
    assert rungs.blind_first_cut(lunar, 50_000) is None  # the calibration alone says nothing at 50,000 steps
    assert rung_fractions(RunConfig(task="t", timesteps=100_000).resolve(lunar), lunar)[0] == [1 / 16, 0.25, 1.0]
    explicit = RunConfig(task="t", rungs=[1 / 16, 1.0]).resolve(lunar)
    assert rung_fractions(explicit, lunar)[0] == [1 / 16, 1.0]
    acrobot = load_task("acrobot-swing-up")  # its first rung sees (+4.16 se)
    assert rung_fractions(RunConfig(task="t").resolve(acrobot), acrobot)[0] == [1 / 16, 0.25, 1.0]
    pusher = load_task("pusher-push")  # blind at its first rung, which is 1/4 already: the calibration-blind gate
    fractions, why = rung_fractions(RunConfig(task="t").resolve(pusher), pusher)
    assert fractions == [0.25, 1.0] and why is not None and why.how == "measured"
    assert rungs.blind_first_cut(pusher, 100_000, why) is not None
    stale = lunar.model_copy(update={"calibration": lunar.calibration.model_copy(update={"stale": "other settings"})})
    assert rung_fractions(RunConfig(task="t").resolve(stale), stale)[0] == [1 / 16, 0.25, 1.0]
