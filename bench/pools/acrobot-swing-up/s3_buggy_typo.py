"""Hand-written pool entry, label: buggy. A misspelt attribute (`observation` for `obs`): the critic rejects it and
asks for a repair."""


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.observation[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    components = {
        "time": -1.0,
        "height": 0.5 * (height + 2.0) / 3.0,
        "bar": 10.0 if height > 1.0 else 0.0,
    }
    return sum(components.values()), components
