"""Hand-written pool entry, label: weak. Only stillness: minus the squared angular speed, blind to where the pole is,
so hanging at rest scores as well as holding the tilt."""


def compute_reward(state, action, next_state):
    still = -float(next_state.obs[2]) ** 2
    return still, {"still": still}
