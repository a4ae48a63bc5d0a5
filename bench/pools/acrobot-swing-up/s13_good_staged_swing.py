"""Hand-written pool entry, label: good. Staged: below the pivot, pay swinging (the links' speed, capped); above it,
pay height; a time cost keeps every step's total below 0 and a bonus marks the bar."""

SWING_CAP = 0.3


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    w1, w2 = float(next_state.obs[4]), float(next_state.obs[5])
    low = height < 0.0
    components = {
        "time": -1.0,
        "swing": min(SWING_CAP, 0.01 * (w1**2 + 0.25 * w2**2)) if low else 0.0,
        "height": 0.0 if low else SWING_CAP + 0.5 * height,
        "bar": 10.0 if height > 1.0 else 0.0,
    }
    return sum(components.values()), components
