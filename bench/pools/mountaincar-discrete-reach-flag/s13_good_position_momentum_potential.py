"""Hand-written pool entry, label: good. A potential of position and speed (how far right, how much momentum),
paid as its change each step, a time cost and a flag bonus."""


def potential(obs):
    return float(obs[0]) + 5.0 * abs(float(obs[1]))


def compute_reward(state, action, next_state):
    components = {
        "progress": 20.0 * (potential(next_state.obs) - potential(state.obs)),
        "time": -0.5,
        "flag": 100.0 if float(next_state.obs[0]) >= 0.5 else 0.0,
    }
    return sum(components.values()), components
