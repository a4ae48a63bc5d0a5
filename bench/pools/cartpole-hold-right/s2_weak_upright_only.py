"""Hand-written pool entry, label: weak. Rewards only how upright the pole is: a balancing reward that never asks
the cart to move to the spot."""


def compute_reward(state, action, next_state):
    angle = float(next_state.obs[2])
    components = {
        "upright": 1.0 - abs(angle) / 0.21,
    }
    return sum(components.values()), components
