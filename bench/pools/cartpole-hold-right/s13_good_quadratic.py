"""Hand-written pool entry, label: good. A quadratic bowl around the spot (clipped at zero), an upright term from
the pole's angle and angular speed, and a bonus at the spot."""

SPOT = 1.0


def compute_reward(state, action, next_state):
    x, _, angle, angle_dot = (float(v) for v in next_state.obs[0:4])
    components = {
        "alive": 0.5,
        "bowl": max(0.0, 1.0 - 0.25 * (x - SPOT) ** 2),
        "upright": 0.5 * (1.0 - abs(angle) / 0.21) - 0.05 * abs(angle_dot),
        "at_spot": 0.5 if abs(x - SPOT) < 0.2 else 0.0,
    }
    return sum(components.values()), components
