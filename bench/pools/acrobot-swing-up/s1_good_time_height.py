"""Hand-written pool entry, label: good. A cost for every step before the bar (the episode ends there), softened by
the free end's height, so the per-step total stays negative and climbing earlier pays."""

HEIGHT_WEIGHT = 0.25


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)  # -2 hanging, 1 at the bar
    components = {
        "time": -1.0,
        "height": HEIGHT_WEIGHT * (height + 2.0) / 3.0,  # 0 to 0.25: the total stays below 0
    }
    return sum(components.values()), components
