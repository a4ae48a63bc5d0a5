"""Hand-written pool entry, label: weak. A constant +1 a step with a hundredth of the position: the flag ends the
episode and the +1s with it, so the car is paid to stay in the valley."""


def compute_reward(state, action, next_state):
    components = {
        "alive": 1.0,
        "position": 0.01 * float(next_state.obs[0]),
    }
    return sum(components.values()), components
