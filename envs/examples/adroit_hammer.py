"""Example reward for `adroit-hammer`: grasp the hammer, lift it, strike the nail and drive it in.

Staged and dense, after DAPG's hammer reward (Rajeswaran et al., 2018): minus the palm-to-hammer
distance (site `S_grasp` to body `Object`); the hammer's height above the table (it rests at z 0.035),
capped, so picking it up pays; minus the hammer head's (site `tool`) distance to the nail head (site
`S_target`); minus the nail's distance to its driven-in goal (site `nail_goal`), weighted highest; a
bonus on every step the nail is within 0.01 m of the goal (the task counts 25 such steps).
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import numpy as np

TABLE_Z = 0.035  # the hammer's height lying on the table


def compute_reward(state, action, next_state):
    palm, hammer = next_state.site("S_grasp").pos, next_state.body("Object").pos
    head, nail, goal = (next_state.site(name).pos for name in ("tool", "S_target", "nail_goal"))
    nail_gap = float(np.linalg.norm(nail - goal))
    components = {
        "reach_hammer": -0.5 * float(np.linalg.norm(palm - hammer)),
        "lift_hammer": 5.0 * min(max(float(hammer[2]) - TABLE_Z, 0.0), 0.1),
        "head_to_nail": -float(np.linalg.norm(head - nail)),
        "drive_nail": -10.0 * nail_gap,
        "nail_in": 5.0 if nail_gap <= 0.01 else 0.0,
    }
    return sum(components.values()), components
