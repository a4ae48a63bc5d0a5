"""Hand-written pool entry, label: good. The repair of the buggy entry: the body name fixed."""


def compute_reward(state, action, next_state):
    velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    components = {"backward": -2.0 * float(velocity)}
    return sum(components.values()), components
