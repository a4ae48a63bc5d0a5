"""Hand-written pool entry, label: good. The repair of the slow energy reward: the busy work removed, the same time
cost and gap between a rough energy and the bar's."""


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    w1, w2 = float(next_state.obs[4]), float(next_state.obs[5])
    energy = 9.8 * height + 0.5 * (w1**2 + w2**2)
    components = {
        "time": -1.0,
        "energy_gap": -abs(energy - 9.8) / 40.0,
    }
    return sum(components.values()), components
