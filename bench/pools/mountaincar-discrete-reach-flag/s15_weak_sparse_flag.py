"""Hand-written pool entry, label: weak. Only the flag: random pushes almost never reach it, so there is nothing to
learn from at the search budget."""


def compute_reward(state, action, next_state):
    components = {"flag": 1.0 if float(next_state.obs[0]) >= 0.5 else 0.0}
    return sum(components.values()), components
