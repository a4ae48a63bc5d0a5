"""Example reward for `metaworld-peg-insert-side`: grasp the peg, lift it, and push its head into the hole.

Staged and dense: minus the distance from the gripper's centre (midway between the fingertip sites) to
the peg's grasp point (obs[4:7]); closing the fingers (obs[3], 0 = closed) once there; lifting the peg
off the table while held; minus the distance from the peg's head (site `pegHead`) to the hole (the goal,
obs[36:39]) with the y and z gaps weighted x2 (aligning with the hole's axis matters more than depth),
weighted highest; a bonus while that distance is within 0.07 (the task's success criterion).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np

TABLE_Z = 0.03  # the grasp point's height with the peg lying on the table


def compute_reward(state, action, next_state):
    obs = next_state.obs
    tcp = 0.5 * (next_state.site("leftEndEffector").pos + next_state.site("rightEndEffector").pos)
    grasp_point, hole = obs[4:7], obs[36:39]
    to_peg = float(np.linalg.norm(tcp - grasp_point))
    head_gap = (next_state.site("pegHead").pos - hole) * np.array([1.0, 2.0, 2.0])
    to_hole = float(np.linalg.norm(head_gap))
    held = to_peg < 0.03
    lift = min(max(float(grasp_point[2]) - TABLE_Z, 0.0), max(float(hole[2]) - TABLE_Z, 0.05))
    components = {
        "reach_peg": -to_peg,
        "close_on_peg": 0.5 * (1.0 - float(obs[3])) if held else 0.0,
        "lift_peg": 5.0 * lift if held else 0.0,
        "head_to_hole": -5.0 * to_hole,
        "inserted": 2.0 if to_hole <= 0.07 else 0.0,
    }
    return sum(components.values()), components
