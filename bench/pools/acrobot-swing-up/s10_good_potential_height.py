"""Hand-written pool entry, label: good. Potential-based shaping on the free end's height (gamma 0.99, the spec's),
which keeps the env's own optimum, on top of the env's own -1 a step."""

GAMMA = 0.99
SCALE = 5.0


def _height(obs):
    cos1, sin1, cos2, sin2 = (float(v) for v in obs[:4])
    return -cos1 - (cos1 * cos2 - sin1 * sin2)


def compute_reward(state, action, next_state):
    components = {
        "time": -1.0,
        "shaping": SCALE * (GAMMA * _height(next_state.obs) - _height(state.obs)),
    }
    return sum(components.values()), components
