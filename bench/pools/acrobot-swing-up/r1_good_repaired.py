"""Hand-written pool entry, label: good. The repair of the typo: `obs` throughout, the same time cost, height and
bonus at the bar."""


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    components = {
        "time": -1.0,
        "height": 0.5 * (height + 2.0) / 3.0,
        "bar": 10.0 if height > 1.0 else 0.0,
    }
    return sum(components.values()), components
