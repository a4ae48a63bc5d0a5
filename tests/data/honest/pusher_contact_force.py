# task: pusher-push
import numpy as np


def compute_reward(state, action, next_state):
    obj = next_state.body("object").pos
    goal = next_state.body("goal").pos
    moved = float(np.linalg.norm(obj[:2] - state.body("object").pos[:2])) / next_state.dt
    pressing = min(next_state.contact_force("object"), 10.0) * 0.01
    distance = -float(np.hypot(obj[0] - goal[0], obj[1] - goal[1]))
    return distance + 0.1 * moved + pressing, {"distance": distance, "moved": 0.1 * moved, "pressing": pressing}
