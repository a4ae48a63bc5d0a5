"""Hand-written pool entry, label: weak. Sparse: +1 only while the cart is at the spot, nothing else (no survival
term, no shaping), so early policies see almost no reward."""


def compute_reward(state, action, next_state):
    components = {
        "at_spot": 1.0 if abs(float(next_state.obs[0]) - 1.0) < 0.2 else 0.0,
    }
    return sum(components.values()), components
