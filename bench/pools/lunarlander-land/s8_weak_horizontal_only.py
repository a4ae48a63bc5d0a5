"""Hand-written pool entry, label: weak. Only half the task: pays lining up over the pad (the decrease of the
horizontal offset) and nothing for descending, slowing down or touching down, so the lander drifts over the pad
and then falls onto it."""

ALIGN_WEIGHT = 20.0
SIDE_FUEL = 0.03


def compute_reward(state, action, next_state):
    side = min(max(abs(float(action[1])), 0.5), 1.0) if abs(float(action[1])) > 0.5 else 0.0
    components = {
        "line_up": ALIGN_WEIGHT * (abs(float(state.obs[0])) - abs(float(next_state.obs[0]))),
        "side_fuel": -SIDE_FUEL * side,
    }
    return sum(components.values()), components
