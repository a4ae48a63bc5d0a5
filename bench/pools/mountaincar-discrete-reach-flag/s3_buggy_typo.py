"""Hand-written pool entry, label: buggy. A State attribute that does not exist (`position`): the critic rejects it
and asks for a repair."""


def compute_reward(state, action, next_state):
    speed_gain = abs(float(next_state.obs[1])) - abs(float(state.obs[1]))
    components = {
        "speed_gain": 1000.0 * speed_gain,
        "flag": 100.0 if float(next_state.position) >= 0.5 else 0.0,
        "time": -0.1,
    }
    return sum(components.values()), components
