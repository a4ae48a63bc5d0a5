"""Hand-written pool entry, label: good. The repair of the NaN: the speed as a magnitude, under the time cost, and
the flag bonus."""


def compute_reward(state, action, next_state):
    speed = abs(float(next_state.obs[1])) / 0.07
    components = {
        "speed": speed,
        "flag": 100.0 if float(next_state.obs[0]) >= 0.45 else 0.0,
        "time": -1.0,
    }
    return sum(components.values()), components
