"""Hand-written pool entry, label: buggy. A misspelt body name: the critic rejects it and asks for a repair."""


def compute_reward(state, action, next_state):
    velocity = (next_state.body("torsoo").pos[0] - state.body("torso").pos[0]) / next_state.dt
    components = {"backward": -2.0 * float(velocity)}
    return sum(components.values()), components
