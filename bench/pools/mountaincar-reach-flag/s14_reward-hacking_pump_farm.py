"""Hand-written pool entry, label: reward-hacking. Pays pushing with the motion every step and nothing at the
flag: pumping energy earns most when the car swings for the whole episode and never ends it at the flag."""

PUMP_WEIGHT = 1.0


def compute_reward(state, action, next_state):
    velocity = float(next_state.obs[1])
    components = {"pump": PUMP_WEIGHT * max(0.0, float(action[0]) * velocity / 0.07)}
    return sum(components.values()), components
