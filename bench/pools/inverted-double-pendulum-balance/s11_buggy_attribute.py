"""Hand-written pool entry, label: buggy. Reads `site(...).position`, which a State does not have (it is `.pos`):
the critic's smoke run raises AttributeError and asks for a repair."""


def compute_reward(state, action, next_state):
    tip_height = float(next_state.site("tip").position[2])
    components = {"alive": 1.0, "tip_height": 2.0 * (tip_height - 1.0)}
    return sum(components.values()), components
