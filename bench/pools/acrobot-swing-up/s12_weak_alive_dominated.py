"""Hand-written pool entry, label: weak. A constant +1 a step carries the total; the height is a hundredth of it.
The episode ends at the bar, so the bonus asks the policy to stay below it."""


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    components = {"alive": 1.0, "height": 0.01 * height}
    return sum(components.values()), components
