"""Hand-written pool entry, label: weak. Pays only how high the first link points, every step: it ignores the second
link (where the free end is) and, paid while the episode lasts, never asks to finish."""


def compute_reward(state, action, next_state):
    cos1 = float(next_state.obs[0])
    components = {"link1_up": 0.5 * (1.0 - cos1)}  # 0 hanging, 1 pointing up
    return sum(components.values()), components
