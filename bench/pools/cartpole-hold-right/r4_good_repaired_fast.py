"""Hand-written pool entry, label: good. The slow staged reward without its busy work."""


def compute_reward(state, action, next_state):
    before = abs(float(state.obs[0]) - 1.0)
    after = abs(float(next_state.obs[0]) - 1.0)
    components = {
        "alive": 1.0,
        "approach": 5.0 * (before - after),
        "hold": 1.0 if after < 0.2 else 0.0,
    }
    return sum(components.values()), components
