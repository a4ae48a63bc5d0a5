"""Example reward for `metaworld-pick-place`: reach the puck, grasp it, lift it and carry it to the goal.

Staged and dense: minus the distance from the gripper's centre (midway between the fingertip sites) to
the puck (obs[4:7]); closing the fingers (obs[3], 0 = closed) once the gripper's centre is at the puck;
lifting the puck off the table (it rests at z 0.02) while the gripper holds it; minus the puck's distance
to the goal (obs[36:39], possibly in the air), weighted highest; a bonus while within 0.07 m of it (the
task's success radius).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np

TABLE_Z = 0.02  # the puck's centre height resting on the table


def compute_reward(state, action, next_state):
    obs = next_state.obs
    tcp = 0.5 * (next_state.site("leftEndEffector").pos + next_state.site("rightEndEffector").pos)
    puck, goal = obs[4:7], obs[36:39]
    to_puck = float(np.linalg.norm(tcp - puck))
    to_goal = float(np.linalg.norm(puck - goal))
    at_puck = to_puck < 0.03
    lift = min(max(float(puck[2]) - TABLE_Z, 0.0), max(float(goal[2]) - TABLE_Z, 0.05))
    components = {
        "reach_puck": -to_puck,
        "close_on_puck": 0.5 * (1.0 - float(obs[3])) if at_puck else 0.0,
        "lift_puck": 5.0 * lift if at_puck else 0.0,
        "puck_to_goal": -5.0 * to_goal,
        "at_goal": 2.0 if to_goal <= 0.07 else 0.0,
    }
    return sum(components.values()), components
