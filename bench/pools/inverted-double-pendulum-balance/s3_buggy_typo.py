"""Hand-written pool entry, label: buggy. A misspelt variable: the critic rejects it and asks for a repair."""


def compute_reward(state, action, next_state):
    tip_height = float(next_state.site("tip").pos[2])
    components = {"alive": 1.0, "tip_height": 2.0 * (tip_heigth - 1.0)}
    return sum(components.values()), components
