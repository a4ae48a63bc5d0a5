"""Hand-written pool entry, label: buggy. A State attribute that does not exist (`cart_position`): the critic
rejects it and asks for a repair."""


def compute_reward(state, action, next_state):
    distance = abs(float(next_state.cart_position) - 1.0)
    components = {
        "alive": 1.0,
        "closeness": 1.0 - min(distance, 2.0) / 2.0,
        "at_spot": 1.0 if distance < 0.2 else 0.0,
    }
    return sum(components.values()), components
