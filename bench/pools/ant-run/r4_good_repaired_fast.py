"""Hand-written pool entry, label: good. The repair of the slow entry: the busy work removed, forward speed weighted
by uprightness kept."""


def compute_reward(state, action, next_state):
    velocity = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    up = max(float(next_state.body("torso").xmat[2, 2]), 0.0)
    components = {"forward": float(velocity) * up, "upright": 0.5 * up}
    return sum(components.values()), components
