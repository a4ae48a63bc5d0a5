"""Hand-written pool entry, label: weak. The textbook CartPole shaping: stay alive and keep the cart near the centre of
the track, which is the wrong place for this task."""


def compute_reward(state, action, next_state):
    x, angle = float(next_state.obs[0]), float(next_state.obs[2])
    components = {
        "alive": 1.0,
        "centred": -0.2 * abs(x),
        "tilt": -0.5 * abs(angle),
    }
    return sum(components.values()), components
