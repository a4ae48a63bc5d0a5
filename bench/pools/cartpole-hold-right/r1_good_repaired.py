"""Hand-written pool entry, label: good. The repair of the typo: `obs[0]` for the cart's position, the same survival,
closeness and spot terms."""


def compute_reward(state, action, next_state):
    distance = abs(float(next_state.obs[0]) - 1.0)
    components = {
        "alive": 1.0,
        "closeness": 1.0 - min(distance, 2.0) / 2.0,
        "at_spot": 1.0 if distance < 0.2 else 0.0,
    }
    return sum(components.values()), components
