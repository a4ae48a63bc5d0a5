"""Hand-written pool entry, label: good. The repair of the NaN: the speed's magnitude gained each step (defined
everywhere), the flag bonus and the time cost."""


def compute_reward(state, action, next_state):
    gain = abs(float(next_state.obs[1])) - abs(float(state.obs[1]))
    components = {
        "speed_gain": 100.0 * gain / 0.07,
        "flag": 100.0 if float(next_state.obs[0]) >= 0.5 else 0.0,
        "time": -1.0,
    }
    return sum(components.values()), components
