"""Hand-written pool entry, label: good. The repair of the buggy entry: the variable name fixed."""


def compute_reward(state, action, next_state):
    tip_height = float(next_state.site("tip").pos[2])
    components = {"alive": 1.0, "tip_height": 2.0 * (tip_height - 1.0)}
    return sum(components.values()), components
