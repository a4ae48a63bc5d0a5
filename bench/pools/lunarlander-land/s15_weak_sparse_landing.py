"""Hand-written pool entry, label: weak. Only the landing, as the task scores it: a bonus while the lander stands
still on both legs between the flags, nothing else, so nothing guides a policy that has not yet landed by
chance."""

import math

LANDED_BONUS = 10.0


def compute_reward(state, action, next_state):
    obs = next_state.obs
    speed = math.hypot(float(obs[2]), float(obs[3]))
    landed = (
        float(obs[6]) + float(obs[7]) == 2.0 and abs(float(obs[0])) < 0.2 and float(obs[1]) > -0.02 and speed < 0.01
    )
    components = {"landed": LANDED_BONUS if landed else 0.0}
    return sum(components.values()), components
