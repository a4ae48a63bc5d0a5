"""Hand-written pool entry, label: weak. Only keeps the cart centred; nothing about balance, and the per-step cost
teaches nothing about staying up."""


def compute_reward(state, action, next_state):
    components = {"centre": -abs(float(next_state.joint("slider").qpos))}
    return sum(components.values()), components
