"""Hand-written pool entry, label: weak. Pays how far the free end reaches out sideways: the wrong quantity (the most
is both links horizontal, at the pivot's height, not above the bar), paid every step."""


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    reach = abs(sin1 + (sin1 * cos2 + cos1 * sin2))  # |x| of the free end: 0 hanging, 2 horizontal
    components = {"reach": 0.5 * reach}
    return sum(components.values()), components
