"""Hand-written pool entry, label: weak. The position alone, every step: no term for the momentum the car must build,
so pushing right from the valley floor looks best at once."""


def compute_reward(state, action, next_state):
    components = {"position": float(next_state.obs[0])}
    return sum(components.values()), components
