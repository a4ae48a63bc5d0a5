"""Hand-written pool entry, label: weak. Only keeps the torso level: the ant must stay right side up to run, but
nothing here asks it to move."""


def compute_reward(state, action, next_state):
    components = {"level": float(next_state.body("torso").xmat[2, 2])}
    return sum(components.values()), components
