"""The families beyond locomotion: Meta-World, Gymnasium-Robotics (Fetch, Adroit, Shadow Hand) and
stable-eureka's Box2D/classic envs. Descriptions, dict observations, contacts, control periods, the
scorer-only env accessor, and the manipulation scorers against each benchmark's own success flag."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from rewardsmith.errors import TaskSpecError
from rewardsmith.reward.state import State, control_period
from rewardsmith.reward.wrappers import ApplyReward, neutral_action
from rewardsmith.stages.env_description import describe
from rewardsmith.task import ENVS_DIR, TASKS_PATH_VAR, TrainDefaults, list_tasks, load_task, make_env, make_scorer
from rewardsmith.workers.executor import LocalExecutor

EXECUTOR = LocalExecutor(workers=2)
"""The worker pool of this module's stage calls (a stage takes its executor explicitly)."""

SUITES = {"manipulation": 9, "hands": 6, "peer": 9}
FAMILY_SPECS = sorted(
    name.strip()
    for suite in SUITES
    for name in (ENVS_DIR / f"{suite}.txt").read_text().splitlines()
    if name.strip() and not name.startswith("#")
)
METAWORLD_POLICIES = {
    "metaworld-reach": "SawyerReachV3Policy",
    "metaworld-reach-fixed-goal": "SawyerReachV3Policy",
    "metaworld-push": "SawyerPushV3Policy",
    "metaworld-pick-place": "SawyerPickPlaceV3Policy",
    "metaworld-door-open": "SawyerDoorOpenV3Policy",
    "metaworld-drawer-open": "SawyerDrawerOpenV3Policy",
    "metaworld-button-press": "SawyerButtonPressV3Policy",
    "metaworld-peg-insert-side": "SawyerPegInsertionSideV3Policy",
    "metaworld-window-open": "SawyerWindowOpenV3Policy",
}
# one per family runs in the default (fast) set; the rest are marked slow (envs take seconds to build)
FAST = {
    "metaworld-reach",
    "fetch-push",
    "adroit-door",
    "mountaincar-reach-flag",
    "lunarlander-land",
    "bipedalwalker-walk",
    "pendulum-swing-up",
    "acrobot-swing-up",
    "mountaincar-discrete-reach-flag",
    "cartpole-hold-right",
}


def by_speed(names) -> list:
    return [n if n in FAST else pytest.param(n, marks=pytest.mark.slow) for n in sorted(names)]


HAND_REWARD = """
import numpy as np


def compute_reward(state, action, next_state):
    goal = next_state.goal if next_state.goal is not None else np.zeros(1)
    components = {
        "stay_small": -0.01 * float(np.sum(np.square(next_state.obs[:3]))),
        "goal_norm": -0.001 * float(np.linalg.norm(goal)),
        "effort": -0.01 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
"""


def test_suites_list_the_promised_families_and_at_least_25_tasks() -> None:
    for suite, count in SUITES.items():
        names = [n for n in (ENVS_DIR / f"{suite}.txt").read_text().splitlines() if n and not n.startswith("#")]
        assert len(names) == count and all((ENVS_DIR / f"{n}.toml").is_file() for n in names), suite
    assert len(list_tasks()) >= 25
    assert set(METAWORLD_POLICIES) <= set(FAMILY_SPECS)


@pytest.mark.parametrize("name", by_speed(FAMILY_SPECS))
def test_family_spec_describes_without_the_native_reward(name: str) -> None:
    spec = load_task(name)
    assert spec.success and spec.human_baseline
    text = describe(spec)
    assert "## Observation" in text and "state.obs" in text
    assert "compute_reward(" not in text.split("## Reading the state")[0]
    for word in ("reward_", "ctrl_cost", "shaping", "unscaled_reward", "in_place_reward", "grasp_reward"):
        assert word not in text, word
    if name.startswith(("bipedal", "lunar", "mountaincar", "pendulum", "acrobot")):
        assert "Not a MuJoCo env" in text and re.search(r"obs\[(1|0:2)\] =", text) and "## Action" in text
    if name.startswith(("fetch", "shadowhand")):
        assert "`state.goal`" in text and "`state.achieved_goal`" in text and "flattened" in text
    if name.startswith(("metaworld", "fetch", "adroit", "shadowhand")):
        assert "state.contacts()" in text and "Named geoms" in text
        assert "never ends early" in text.split("- Early termination:")[1].split("\n")[0]


def test_a_spec_chooses_a_fixed_or_a_random_goal() -> None:
    """Meta-World/MT1 draws a new goal every episode; Meta-World/goal_observable with a seed keeps one."""

    def goals(name: str) -> list[tuple]:
        env = ApplyReward(make_env(load_task(name)), source="native")
        try:
            return [tuple(np.round(env.reset(seed=seed)[0][-3:], 6)) for seed in range(3)]
        finally:
            env.close()

    assert len(set(goals("metaworld-reach"))) == 3
    assert len(set(goals("metaworld-reach-fixed-goal"))) == 1


@pytest.mark.parametrize("name", by_speed(METAWORLD_POLICIES))
def test_a_metaworld_spec_starts_the_same_in_every_env_the_run_builds(name: str) -> None:
    """The training, evaluation and video workers each build the env: `reset(seed=s)` must give each the same start."""
    from rewardsmith.reward.task_check import reset_is_reproducible

    assert reset_is_reproducible(load_task(name), seed=3)


def test_an_unseeded_metaworld_spec_is_flagged_before_a_run(tmp_path: Path) -> None:
    """Without `seed`, MT1 draws its 50 goals from NumPy's global generator: every process gets other goals, so
    candidates would be evaluated on different starts. `validate_task` (run's first step) says so."""
    from rewardsmith.reward.task_check import validate_task

    text = (ENVS_DIR / "metaworld-reach.toml").read_text()
    assert ", seed = 0 }" in text
    (tmp_path / "unseeded.toml").write_text(text.replace(", seed = 0 }", " }"))
    (tmp_path / "scorers_manipulation.py").write_text((ENVS_DIR / "scorers_manipulation.py").read_text())
    warnings = validate_task(load_task(tmp_path / "unseeded.toml"), max_steps=20)
    assert any("reset(seed=0) gives a different first observation" in w for w in warnings), warnings
    assert not any("reset(seed=" in w for w in validate_task(load_task("metaworld-reach"), max_steps=20))


@pytest.mark.parametrize("name", by_speed(METAWORLD_POLICIES))
def test_metaworld_scorer_agrees_with_metaworld_success_flag(name: str) -> None:
    """Record a scripted (expert) episode and a random one; at every step the scorer's success criterion,
    computed from the State alone, equals Meta-World's own `info["success"]`."""
    import metaworld.policies

    spec = load_task(name)
    policy = getattr(metaworld.policies, METAWORLD_POLICIES[name])()
    env = ApplyReward(make_env(spec), scorer=make_scorer(spec), source="native")
    scorer = env.scorer
    successes, disagreements, steps = 0, 0, 0
    for episode, scripted in ((0, True), (1, False)):
        obs, _ = env.reset(seed=episode)
        env.action_space.seed(episode)  # the random episode is the same on every run
        for _ in range(300 if scripted else 100):
            action = policy.get_action(obs) if scripted else env.action_space.sample()
            obs, _, terminated, truncated, info = env.step(np.clip(action, -1, 1))
            steps += 1
            successes += bool(info["success"])
            disagreements += scorer.succeeded_now != bool(info["success"])
            if terminated or truncated:
                break
        if scripted:
            assert scorer.result() == (1.0, True), "the expert policy succeeds, so the scorer must say so"
    assert successes > 0, "the scripted policy should reach the goal, or this test checks nothing"
    assert disagreements == 0, f"{disagreements} of {steps} steps disagree with Meta-World's success flag"


def recording_env(spec) -> tuple[ApplyReward, list[State]]:
    """The task's env with its scorer, and a zero reward that keeps every `next_state` it is given."""
    seen: list[State] = []

    def reward(state, action, next_state):
        seen.append(next_state)
        return 0.0, {}

    return ApplyReward(make_env(spec), reward_fn=reward, scorer=make_scorer(spec)), seen


def set_joint_qpos(env, joint: str, value) -> None:
    """Teleport a joint (a free joint takes position and quaternion) and recompute the simulation's derived state."""
    import mujoco

    model, data = env.model, env.data
    adr = model.jnt_qposadr[mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, joint)]
    value = np.atleast_1d(np.asarray(value, dtype=float))
    data.qpos[adr : adr + len(value)] = value
    mujoco.mj_forward(model, data)


def block_at_goal(env) -> None:
    set_joint_qpos(env, "object0:joint", np.r_[env.goal[:3], 1.0, 0.0, 0.0, 0.0])


def door_open(env) -> None:
    set_joint_qpos(env, "latch", 1.5)
    set_joint_qpos(env, "door_hinge", 1.5)


def nail_driven(env) -> None:
    set_joint_qpos(env, "nail_dir", 0.09)  # the slide's far end


def block_turned_to_goal(env) -> None:
    position = env._utils.get_joint_qpos(env.model, env.data, "object:joint")[:3]
    set_joint_qpos(env, "object:joint", np.r_[position, env.goal[3:7]])


# task -> (the env's own per-step success key in `info`, how to put the env in a solved state after reset;
# None: steered there by a proportional controller instead, since Fetch's gripper follows a mocap body)
ROBOTICS_SOLVED = {
    "fetch-reach": ("is_success", None),
    "fetch-push": ("is_success", block_at_goal),
    "fetch-pick-and-place": ("is_success", block_at_goal),
    "adroit-door": ("success", door_open),
    "adroit-hammer": ("success", nail_driven),
    "shadowhand-block-rotate-z": ("is_success", block_turned_to_goal),
}


@pytest.mark.parametrize("name", sorted(ROBOTICS_SOLVED))  # about a second each
def test_robotics_scorer_agrees_with_the_envs_success_flag(name: str) -> None:
    """A solved episode (the env teleported to its goal, then zero actions) and a random one: at every step the
    scorer's goal test, from the State alone, equals Gymnasium-Robotics' own flag (`is_success`; Adroit's
    `success`); its episode success equals the benchmark's rule (the last step for Fetch and Shadow Hand, at least
    25 steps for Adroit, as DAPG counts it); and the solved episode scores above the random one."""
    key, solve = ROBOTICS_SOLVED[name]
    spec = load_task(name)
    env, seen = recording_env(spec)
    fitness = {}
    try:
        for episode, solved in ((0, True), (1, False)):
            env.reset(seed=episode)
            env.action_space.seed(episode)
            if solved and solve is not None:
                solve(env.unwrapped)
            flags = []
            while True:
                action = np.zeros(env.action_space.shape) if solved else env.action_space.sample()
                if solved and solve is None:
                    u = env.unwrapped
                    grip = u._utils.get_site_xpos(u.model, u.data, "robot0:grip")
                    action = np.r_[np.clip(10.0 * (u.goal - grip), -1.0, 1.0), 0.0]
                _, _, terminated, truncated, info = env.step(action)
                flags.append(bool(info[key]))
                assert env.scorer.sparse_reward(seen[-1], action, seen[-1]) == float(flags[-1]), (episode, len(flags))
                if terminated or truncated:
                    break
            score, success = env.scorer.result()
            assert success == (sum(flags) >= 25 if key == "success" else flags[-1]), (episode, score, sum(flags))
            assert any(flags) == solved, "the solved episode must reach the goal and the random one must not"
            fitness[solved] = score
    finally:
        env.close()
    assert fitness[True] > fitness[False]


def test_dict_observations_split_into_obs_goal_and_achieved_goal() -> None:
    spec = load_task("fetch-push")
    env = ApplyReward(make_env(spec), scorer=make_scorer(spec), source="native")
    flat, _ = env.reset(seed=0)
    state = env.state
    assert flat.shape == (31,) and env.observation_space.shape == (31,)
    assert state.obs.shape == (25,) and state.goal.shape == (3,) and state.achieved_goal.shape == (3,)
    assert set(state.parts) == {"observation", "desired_goal", "achieved_goal"}
    np.testing.assert_allclose(flat, np.concatenate([state.achieved_goal, state.goal, state.obs]))
    np.testing.assert_allclose(state.achieved_goal, state.obs[3:6])  # the block's position, as documented
    with pytest.raises(ValueError):
        state.goal[0] = 1.0
    assert State(np.zeros(3), 0.1).goal is None


def test_contacts_name_geoms_bodies_and_forces() -> None:
    spec = load_task("metaworld-pick-place")
    env = ApplyReward(make_env(spec), scorer=make_scorer(spec), source="native")
    env.reset(seed=0)
    for _ in range(5):
        env.step(np.zeros(4))
    contacts = env.state.contacts()
    assert contacts and all(c.force >= 0 and len(c.pos) == 3 for c in contacts)
    touched = {c.body1 for c in contacts} | {c.body2 for c in contacts}
    assert "obj" in touched  # the puck rests on the table
    assert env.state.touching("obj") and env.state.contact_force("obj") > 0
    with pytest.raises(KeyError, match="no geom or body named 'nope'"):
        env.state.contact_force("nope")
    assert env.state.site("rightEndEffector").xmat.shape == (3, 3)


def test_control_period_comes_from_the_env_or_is_declared_absent() -> None:
    assert control_period(make_env(load_task("bipedalwalker-walk")))[0] == pytest.approx(1 / 50)
    assert control_period(make_env(load_task("lunarlander-land")))[0] == pytest.approx(1 / 50)
    assert control_period(make_env(load_task("mountaincar-reach-flag"))) == (1.0, "none")
    assert "`state.dt` is 1.0" in describe(load_task("mountaincar-reach-flag"))


@pytest.mark.parametrize(
    "name",
    [
        "bipedalwalker-walk",
        "lunarlander-land",
        "mountaincar-reach-flag",
        "pendulum-swing-up",
        "acrobot-swing-up",
        "mountaincar-discrete-reach-flag",
        "cartpole-hold-right",
        "pendulum-hold-tilted",
        "pendulum-spin",
    ],
)
def test_peer_scorers_read_the_env_but_rewards_never_get_it(name: str) -> None:
    spec = load_task(name)
    env, seen = recording_env(spec)
    assert env.scorer.env is env.unwrapped
    env.reset(seed=0)
    while True:
        _, _, terminated, truncated, info = env.step(neutral_action(env.action_space))
        if terminated or truncated:
            break
    fitness, success = info["episode_stats"]["fitness"], info["episode_stats"]["success"]
    assert -1.0 <= fitness < 1.0 and success is False  # doing nothing never solves these
    assert all(not hasattr(s, "env") and s.dt > 0 for s in seen)


def test_mountaincar_scorer_tells_reaching_the_flag_from_not() -> None:
    spec = load_task("mountaincar-reach-flag")
    env = ApplyReward(make_env(spec), scorer=make_scorer(spec), source="native")
    obs, _ = env.reset(seed=0)
    while True:  # bang-bang along the velocity: the textbook energy-pumping controller
        obs, _, terminated, truncated, info = env.step(np.array([1.0 if obs[1] >= 0 else -1.0]))
        if terminated or truncated:
            break
    assert info["episode_stats"]["success"] is True and info["episode_stats"]["fitness"] == 1.0


def test_acrobot_scorer_pays_reaching_the_bar_and_reaching_it_sooner() -> None:
    spec = load_task("acrobot-swing-up")

    def episode(policy) -> dict:
        env = ApplyReward(make_env(spec), scorer=make_scorer(spec), source="native")
        obs, _ = env.reset(seed=0)
        while True:
            obs, _, terminated, truncated, info = env.step(policy(obs))
            if terminated or truncated:
                env.close()
                return info["episode_stats"]

    pump = episode(lambda obs: 2 if obs[5] >= 0 else 0)  # torque along the elbow's own swing: pumps energy
    assert pump["success"] is True and 0.5 < pump["fitness"] < 1.0 and pump["termination"] == "terminated"
    idle = episode(lambda obs: 1)  # no torque: it hangs
    assert idle["success"] is False and 0.0 <= idle["fitness"] < 0.1
    # the bar ends the episode, and a late arrival scores less than an early one
    late = 0.5 + 0.5 * (1 - 400 / 500)
    assert pump["fitness"] > late


def pendulum_episode(task: str, start: tuple[float, float], control) -> dict:
    """One episode of a Pendulum task from (theta, theta_dot) = `start`, torque `control(theta, theta_dot)`, scored
    by the task's scorer: its `episode_stats`."""
    spec = load_task(task)
    env = ApplyReward(make_env(spec), scorer=make_scorer(spec), source="native")
    env.reset(seed=0)
    env.unwrapped.state = np.array(start)  # the scorer reads the env's own angle
    env.scorer.reset(None)
    while True:
        theta, theta_dot = env.unwrapped.state
        _, _, terminated, truncated, info = env.step(np.array([control(theta, theta_dot)], dtype=np.float32))
        if terminated or truncated:
            return info["episode_stats"]


def test_pendulum_scorer_tells_holding_upright_from_spinning_through_the_top() -> None:
    spec = load_task("pendulum-swing-up")

    def episode(start: tuple[float, float], control) -> dict:
        return pendulum_episode(spec.name, start, control)

    def hold(theta: float, theta_dot: float) -> float:  # PD on the wrapped angle, within the motor's 2 N m
        wrapped = (theta + np.pi) % (2 * np.pi) - np.pi
        return float(np.clip(-10.0 * wrapped - 2.0 * theta_dot, -2.0, 2.0))

    held = episode((0.1, 0.0), hold)
    assert held["success"] is True and held["fitness"] == 1.0
    spinning = episode((0.0, 8.0), lambda theta, theta_dot: 2.0 * np.sign(theta_dot))  # keeps going round
    assert spinning["success"] is False and 0.0 < spinning["fitness"] < 0.5
    # from reset seed 0 the pole hangs and never rises under random or zero torques (fitness 0 for both); the task
    # check tries other starts before it calls the scorer blind to the policy
    from rewardsmith.reward.task_check import validate_task

    assert not any("may not depend on what the policy does" in w for w in validate_task(spec))


def test_pendulum_spin_scorer_counts_turns_one_way_only() -> None:
    """pendulum-spin: the net turns of the env's unwrapped angle, positive only; success needs the last 100 steps'."""

    def episode(start: tuple[float, float], torque: float) -> dict:
        return pendulum_episode("pendulum-spin", start, lambda theta, theta_dot: torque)

    forward = episode((0.0, 8.0), 2.0)  # over the top and round, pushed the way it turns: about 11 turns in 10 s
    assert forward["success"] is True and forward["fitness"] == 1.0
    backward = episode((0.0, -8.0), -2.0)  # as fast, the other way
    assert backward["success"] is False and backward["fitness"] == 0.0
    hanging = episode((np.pi, 0.0), 0.0)  # hanging still: no turn
    assert hanging["success"] is False and hanging["fitness"] < 1e-9


def test_named_activation_resolves_and_a_bad_name_is_refused() -> None:
    from pydantic import ValidationError
    from torch import nn

    assert TrainDefaults(policy_kwargs={"activation_fn": "tanh"}).sb3_policy_kwargs()["activation_fn"] is nn.Tanh
    assert TrainDefaults(policy_kwargs={"activation_fn": "relu"}).sb3_policy_kwargs()["activation_fn"] is nn.ReLU
    with pytest.raises(ValidationError, match="activation_fn 'Tanhh'"):
        TrainDefaults(policy_kwargs={"activation_fn": "Tanhh"})


def test_imports_register_third_party_ids_and_a_missing_module_is_a_task_error(tmp_path: Path) -> None:
    text = (ENVS_DIR / "metaworld-reach.toml").read_text().replace('"metaworld"]', '"no_such_module_xyz"]')
    (tmp_path / "bad.toml").write_text(text.replace('name = "metaworld-reach"', 'name = "bad"'))
    with pytest.raises(TaskSpecError, match="imports: cannot import 'no_such_module_xyz'"):
        make_env(load_task(tmp_path / "bad.toml"))


def test_user_spec_folder_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ENVS_DIR / "metaworld-reach.toml").read_text().replace('name = "metaworld-reach"', 'name = "my-reach"')
    (tmp_path / "my-reach.toml").write_text(text)
    (tmp_path / "scorers_manipulation.py").write_text((ENVS_DIR / "scorers_manipulation.py").read_text())
    with pytest.raises(TaskSpecError, match=TASKS_PATH_VAR):
        load_task("my-reach")
    monkeypatch.setenv(TASKS_PATH_VAR, str(tmp_path))
    assert load_task("my-reach").folder == tmp_path.resolve()
    assert "my-reach" in {s.name for s in list_tasks()}


@pytest.mark.slow
@pytest.mark.parametrize("name", FAMILY_SPECS)
def test_family_spec_checks_and_trains_a_hand_written_reward(cli, tiny_spec, tmp_path: Path, name: str) -> None:
    reward = tmp_path / "reward.py"
    reward.write_text(HAND_REWARD)
    sac = load_task(name).train.algo == "SAC"
    hyperparams = (
        {"learning_starts": 64, "batch_size": 32, "buffer_size": 1000}
        if sac
        else {"n_steps": 128, "batch_size": 64, "n_epochs": 1}
    )
    spec_path = tiny_spec(name, timesteps=256, eval_freq=128, eval_episodes=1, hyperparams=hyperparams)
    code, out, err = cli("check", spec_path, reward, "--json")
    assert code == 0 and '"accepted": true' in out, out + err
    code, out, err = cli("train", spec_path, reward, "--timesteps", "256", "--out", tmp_path / "run")
    assert code == 0, out + err


def test_tasks_lists_every_spec_with_its_default_cost(cli) -> None:
    code, out, _ = cli("tasks")
    assert code == 0
    for spec in list_tasks():
        assert spec.name in out
    assert out.count("CPU-h") >= 25


def test_a_sac_task_is_costed_from_its_network_and_updates_per_step() -> None:
    """SAC's learner costs by its widest layer (128x128 trained 1.7x-1.9x the steps per CPU second of 256x256 in the
    equal-learning trainings) and by its gradient steps per env step."""
    from rewardsmith.cost import default_cost, sac_updates_per_step, steps_per_cpu_second, widest_layer

    spec = load_task("metaworld-push")

    def with_train(**update):
        return spec.model_copy(update={"train": spec.train.model_copy(update=update)})

    wide = with_train(policy_kwargs={"net_arch": [256, 256]})
    assert widest_layer(spec.train.policy_kwargs) == 128 and widest_layer(wide.train.policy_kwargs) == 256
    assert 1.6 < default_cost(wide)[1] / default_cost(spec)[1] < 2.0
    assert widest_layer({"net_arch": {"pi": [64, 64], "qf": [400, 300]}}) == 400 and widest_layer({}) == 256
    every_other = with_train(hyperparams={**spec.train.hyperparams, "train_freq": 2})
    twice = with_train(hyperparams={**spec.train.hyperparams, "gradient_steps": 2})
    assert steps_per_cpu_second(twice) < steps_per_cpu_second(spec) < steps_per_cpu_second(every_other)
    per_episode = with_train(hyperparams={**spec.train.hyperparams, "train_freq": [1, "episode"], "gradient_steps": -1})
    assert sac_updates_per_step(spec) == 1.0 == sac_updates_per_step(per_episode)
    assert 50 < steps_per_cpu_second(wide) < 100  # the equal-learning trainings measured 66 to 75


def test_a_ppo_task_is_costed_from_its_own_settings() -> None:
    """PPO's rate comes from the spec's settings (bench/training_cost.py's model): more epochs or smaller minibatches cost
    more, more envs per policy call less, and the env's own step cost by its id; SB3's 64-wide default when unnamed."""
    from rewardsmith.cost import ENV_STEP_US, steps_per_cpu_second, widest_layer

    spec = load_task("hopper-hop")

    def with_settings(env: str = spec.env, n_envs: int = spec.train.n_envs, **hyper):
        train = spec.train.model_copy(update={"n_envs": n_envs, "hyperparams": {**spec.train.hyperparams, **hyper}})
        return steps_per_cpu_second(spec.model_copy(update={"env": env, "train": train}))

    rate = with_settings()
    assert with_settings(n_epochs=20) < rate < with_settings(n_epochs=2)
    assert with_settings(batch_size=32) < rate < with_settings(n_envs=16)
    assert with_settings(env="Ant-v5") < rate < with_settings(env="CartPole-v1")
    assert with_settings(env="MyOwnEnv-v0") < rate  # an unknown env is costed at the default, dearer than Hopper
    assert ENV_STEP_US["Hopper"] < ENV_STEP_US[""]
    # halfcheetah-run's 20 epochs of 64-sample minibatches at 256x256 cost it several times hopper-hop's rate
    assert steps_per_cpu_second(load_task("halfcheetah-run")) * 3 < rate
    assert widest_layer({}, "PPO") == 64


@pytest.mark.parametrize(
    ("env_id", "imports", "expect"),
    [
        ("Hopper-v5", [], 'body = "torso"'),
        ("BipedalWalker-v3", [], "np.asarray(state.obs)"),
        ("FetchPush-v4", ["gymnasium_robotics"], "return np.asarray(state.achieved_goal) - np.asarray(state.goal)"),
        ("PointMaze_UMaze-v3", ["gymnasium_robotics"], "return -distance, distance <= self.success_threshold"),
    ],
)
def test_new_task_writes_a_scorable_spec_with_the_envs_names(cli, tmp_path: Path, env_id, imports, expect) -> None:
    from rewardsmith.reward.task_check import validate_task

    args = [arg for module in imports for arg in ("--imports", module)]
    code, out, err = cli("new-task", "my-task", "--env", env_id, *args, "--folder", tmp_path)
    assert code == 0, out + err
    scorer = (tmp_path / "scorer_my_task.py").read_text()
    assert expect in scorer + (tmp_path / "my-task.toml").read_text()
    spec = load_task(tmp_path / "my-task.toml")
    assert spec.fitness.scorer == "scorer_my_task:MyTaskScore" and spec.imports == imports
    assert validate_task(spec, max_steps=30) is not None  # scorable as written: no TaskSpecError
    code, _, err = cli("new-task", "my-task", "--env", env_id, *args, "--folder", tmp_path)
    assert code != 0 and "exists" in err


def test_new_task_specs_pass_the_runs_training_settings_check(cli, tmp_path: Path) -> None:
    """On an env no shipped spec trains, a discrete-action env gets PPO, a continuous one SAC (LunarLander's shipped
    spec has continuous actions: another problem); both specs load and pass the pre-flight settings check a run
    makes (the faster PPO settings tried in round 39 learned less: docs/performance.md)."""
    from rewardsmith.workers.backends import check_training_settings

    for name, env_id, algo in (("discrete", "LunarLander-v3", "PPO"), ("continuous", "Swimmer-v5", "SAC")):
        code, out, err = cli("new-task", name, "--env", env_id, "--folder", tmp_path)
        assert code == 0, out + err
        spec = load_task(tmp_path / f"{name}.toml")
        assert spec.train.algo == algo and spec.train.n_envs == 1 and "shipped spec" not in out
        check_training_settings(spec, 2048)


@pytest.mark.parametrize(("env_id", "shipped"), [("Ant-v5", "ant-run"), ("Hopper-v5", "hopper-hop")])
def test_new_task_takes_the_train_settings_of_a_shipped_spec_on_the_same_robot(cli, tmp_path, env_id, shipped):
    """ant-run's [train] was tuned and calibrated on Ant-v5; a user's Ant task starts from it (a calibrated spec
    first: not ant-spin's), comments kept. hopper-backflip trains a Hopper whose falls do not end the episode,
    another problem: a Hopper task takes hopper-hop's."""
    code, out, err = cli("new-task", "mine", "--env", env_id, "--folder", tmp_path)
    assert code == 0, out + err
    assert f"the shipped spec `{shipped}`" in out
    assert load_task(tmp_path / "mine.toml").train == load_task(shipped).train


def test_new_task_passes_constructor_kwargs_into_the_spec(cli, tmp_path: Path) -> None:
    """Meta-World/MT1 needs env_name: without it new-task says how to pass it; with --env-kwarg the spec carries
    the kwargs (TOML values kept typed) and loads."""
    mt1 = ("new-task", "drawer", "--env", "Meta-World/MT1", "--imports", "metaworld", "--folder", tmp_path)
    code, _, err = cli(*mt1)
    assert code == 2 and "missing 1 required positional argument: 'env_name'" in err
    assert "pass them with --env-kwarg KEY=VALUE" in err
    code, out, err = cli(*mt1, "--env-kwarg", "env_name=drawer-close-v3", "--env-kwarg", "seed = 0")
    assert code == 0, out + err
    assert load_task(tmp_path / "drawer.toml").env_kwargs == {"env_name": "drawer-close-v3", "seed": 0}
    code, _, err = cli(*mt1, "--env-kwarg", "env_name", "--force")
    assert code == 2 and "--env-kwarg 'env_name': write KEY=VALUE" in err


def test_an_env_that_observes_an_image_is_refused_with_the_reason(cli, tmp_path: Path) -> None:
    """CarRacing observes 96x96x3 pixels: `new-task` writes nothing and a spec for it is a task error, where it used
    to reach a prompt of 27,648 bounds and an MLP over the pixels."""
    import gymnasium as gym

    from rewardsmith.errors import TaskSpecError
    from rewardsmith.reward.task_check import check_observation_fits

    code, _, err = cli("new-task", "race", "--env", "CarRacing-v3", "--folder", tmp_path)
    assert code == 2 and "CarRacing-v3: the env's observation is an image (96x96x3, uint8)" in err
    assert not list(tmp_path.iterdir())
    image = gym.spaces.Box(0, 255, (64, 64, 3), np.uint8)
    with pytest.raises(TaskSpecError, match=r"spec.toml: the env's observation part 'pixels' is an image \(64x64x3"):
        check_observation_fits("spec.toml", gym.spaces.Dict({"pixels": image, "state": gym.spaces.Box(-1, 1, (4,))}))
    check_observation_fits("spec.toml", gym.spaces.Box(-1, 1, (17,)))  # a state vector passes


@pytest.mark.slow
@pytest.mark.parametrize("name", ["bipedalwalker-walk", "fetch-push"])
def test_video_of_a_box2d_and_a_dict_observation_env(tmp_path: Path, name: str) -> None:
    """Box2D renders through its own rgb_array (no frame size); a dict-observation policy gets flat obs."""
    from stable_baselines3 import PPO, SAC

    from rewardsmith.stages.video import record_video

    spec = load_task(name)
    env = ApplyReward(make_env(spec), source="native")
    algo = {"PPO": PPO, "SAC": SAC}[spec.train.algo]
    model = algo(
        "MlpPolicy", env, seed=0, **({"n_steps": 64, "batch_size": 32} if algo is PPO else {"learning_starts": 10})
    )
    model.learn(64)
    cand = tmp_path / "cand"
    cand.mkdir()
    model.save(cand / "model.zip")
    video = record_video(spec, cand, max_steps=20, executor=EXECUTOR)
    assert video is not None and video.stat().st_size > 0, (cand / "video" / "worker.log").read_text()


SLIDER = """
import gymnasium as gym
import numpy as np


class Slider(gym.Env):
    observation_space = gym.spaces.Box(-10.0, 10.0, (2,), np.float32)
    action_space = gym.spaces.Box(-1.0, 1.0, (1,), np.float32)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.position, self.speed = 0.0, 0.0
        return np.array([self.position, self.speed], np.float32), {}

    def step(self, action):
        self.speed += 0.1 * float(action[0])
        self.position += self.speed
        reward = -abs(self.position - 3.0)  # the secret weighting
        shaping_bonus = 0.5
        obs = np.array([self.position, self.speed], np.float32)
        return obs, reward + shaping_bonus, False, False, {}
"""


def test_an_unknown_non_mujoco_env_is_described_by_its_source_without_reward_lines(tmp_path: Path) -> None:
    (tmp_path / "slider.py").write_text(SLIDER)
    (tmp_path / "scorers.py").write_text((ENVS_DIR / "scorers.py").read_text())
    (tmp_path / "slider.toml").write_text(
        'name = "slider"\nenv = "slider:Slider"\ndescription = "Slide the block to x = 3 and stop."\n'
        '[fitness]\nscorer = "scorers:FinalDistance"\n'
    )
    text = describe(load_task(tmp_path / "slider.toml"))
    assert "## Observation code (the env's source, reward lines removed)" in text
    assert "obs = np.array([self.position, self.speed], np.float32)" in text
    assert "secret" not in text and "shaping" not in text and "3.0" not in text
