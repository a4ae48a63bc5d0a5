"""Hand-written pool entry, label: weak. A sparse bonus only when the pole is near upright (cos theta > 0.95) and
nothing else: it never says which way or how fast to turn, and from hanging there is no signal to find it."""


def compute_reward(state, action, next_state):
    cos_theta = float(next_state.obs[0])
    components = {
        "at_top": 1.0 if cos_theta > 0.95 else 0.0,
    }
    return sum(components.values()), components
