"""Hand-written pool entry, label: good. Survival, the decrease in distance to the spot as a potential difference
(nothing for hovering), and a bonus each step the cart is at the spot."""

SPOT = 1.0


def compute_reward(state, action, next_state):
    before = abs(float(state.obs[0]) - SPOT)
    after = abs(float(next_state.obs[0]) - SPOT)
    components = {
        "alive": 1.0,
        "progress": 10.0 * (before - after),
        "at_spot": 1.0 if after < 0.2 else 0.0,
    }
    return sum(components.values()), components
