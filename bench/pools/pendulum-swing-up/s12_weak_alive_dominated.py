"""Hand-written pool entry, label: weak. A constant "keep going" bonus of 5 per step dominates; the height term is
a hundredth of it."""


def compute_reward(state, action, next_state):
    components = {
        "alive": 5.0,
        "height": 0.05 * float(next_state.obs[0]),
    }
    return sum(components.values()), components
