"""Hand-written pool entry, label: good. A per-step reward that falls linearly with the distance to the spot and
stays positive anywhere on the track (so surviving always pays), with a cost on tilt and on speed."""

SPOT = 1.0


def compute_reward(state, action, next_state):
    x, x_dot, angle = (float(v) for v in next_state.obs[0:3])
    components = {
        "base": 2.0,
        "distance": -0.5 * abs(x - SPOT),
        "tilt": -1.0 * abs(angle),
        "speed": -0.1 * abs(x_dot),
    }
    return sum(components.values()), components
