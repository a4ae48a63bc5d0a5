"""Hand-written pool entry, label: weak. Only asks the cart to stay still: necessary for a quiet balance, but the
poles are not mentioned, and a still cart lets them fall."""


def compute_reward(state, action, next_state):
    components = {"still": -abs(float(next_state.joint("slider").qvel))}
    return sum(components.values()), components
