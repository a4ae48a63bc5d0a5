"""Hand-written pool entry, label: weak. Only keeps the torso level: needed for running with its back up, but it
never asks the cheetah to move."""


def compute_reward(state, action, next_state):
    components = {"level": float(next_state.body("torso").xmat[2, 2])}
    return sum(components.values()), components
