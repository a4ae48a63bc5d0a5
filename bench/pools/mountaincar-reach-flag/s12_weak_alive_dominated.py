"""Hand-written pool entry, label: weak. An alive bonus every step with a small progress term and a small flag
bonus: the episode ends at the flag, so staying in the valley for all 999 steps pays far more than reaching it."""

ALIVE_BONUS = 1.0
PROGRESS_WEIGHT = 1.0
FLAG_BONUS = 10.0


def compute_reward(state, action, next_state):
    position = float(next_state.obs[0])
    components = {
        "alive": ALIVE_BONUS,
        "progress": PROGRESS_WEIGHT * (position - float(state.obs[0])),
        "flag": FLAG_BONUS if position >= 0.45 else 0.0,
    }
    return sum(components.values()), components
