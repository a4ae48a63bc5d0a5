"""Hand-written pool entry, label: good. Staged: build speed while in the valley, then climb the right hill, under a
time cost; a bonus at the flag."""


def compute_reward(state, action, next_state):
    x0, v0 = float(state.obs[0]), float(state.obs[1])
    x1, v1 = float(next_state.obs[0]), float(next_state.obs[1])
    climbing = x1 > -0.2 and v1 > 0.0
    components = {
        "time": -1.0,
        "speed_gain": 0.0 if climbing else 500.0 * (abs(v1) - abs(v0)),
        "climb": 20.0 * (x1 - x0) if climbing else 0.0,
        "flag": 50.0 if x1 >= 0.5 else 0.0,
    }
    return sum(components.values()), components
