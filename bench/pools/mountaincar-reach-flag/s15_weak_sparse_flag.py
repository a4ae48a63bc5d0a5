"""Hand-written pool entry, label: weak. Only the flag, as the env scores it: nothing guides a policy that has not
yet reached the flag by chance."""

FLAG_BONUS = 100.0


def compute_reward(state, action, next_state):
    components = {"flag": FLAG_BONUS if float(next_state.obs[0]) >= 0.45 else 0.0}
    return sum(components.values()), components
