"""Hand-written pool entry, label: weak. Rewards the pole being high (cos theta) and nothing else: being upright does
not ask for turning, and the best reading of it is to balance at the top rather than spin."""


def compute_reward(state, action, next_state):
    cos_theta = float(next_state.obs[0])
    components = {
        "height": cos_theta,
    }
    return sum(components.values()), components
