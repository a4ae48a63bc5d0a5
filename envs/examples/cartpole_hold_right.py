"""Example reward for `cartpole-hold-right`: stay up, go to x = +1.0, and settle there.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

SPOT = 1.0


def compute_reward(state, action, next_state):
    x, x_dot, angle = float(next_state.obs[0]), float(next_state.obs[1]), float(next_state.obs[2])
    distance = abs(x - SPOT)
    near = distance < 0.2
    components = {
        "alive": 1.0,  # a fall ends the episode, so every step the pole stays up is worth having
        "closeness": 1.0 - min(distance, 2.0) / 2.0,  # 0 to 1: pulls towards the spot, never below zero
        "at_spot": 1.0 if near else 0.0,
        "settle": -0.5 * abs(x_dot) if near else 0.0,  # slow down once there
        "upright": -1.0 * abs(angle),  # at most 0.21 before the pole counts as fallen
    }
    return sum(components.values()), components
