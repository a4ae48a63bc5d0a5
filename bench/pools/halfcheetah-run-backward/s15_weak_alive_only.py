"""Hand-written pool entry, label: weak. A constant alive bonus: the cheetah never falls out of an episode, so this
pays every policy the same and teaches nothing."""


def compute_reward(state, action, next_state):
    components = {"alive": 1.0}
    return sum(components.values()), components
