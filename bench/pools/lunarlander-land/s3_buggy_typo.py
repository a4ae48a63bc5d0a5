"""Hand-written pool entry, label: buggy. A State attribute that does not exist (`leg_contact`; the legs are
obs[6] and obs[7]): the critic rejects it and asks for a repair."""

import math

PROGRESS_WEIGHT = 20.0
IMPACT_WEIGHT = 30.0
MAX_BRAKING = 0.05  # the most speed (obs units) the engines take off in one step
LANDED_BONUS = 30.0


def landed(state):
    speed = math.hypot(float(state.obs[2]), float(state.obs[3]))
    both_legs = bool(state.leg_contact[0]) and bool(state.leg_contact[1])
    return both_legs and abs(float(state.obs[0])) < 0.2 and float(state.obs[1]) > -0.02 and speed < 0.01


def compute_reward(state, action, next_state):
    distance_before = math.hypot(float(state.obs[0]), float(state.obs[1]))
    distance_after = math.hypot(float(next_state.obs[0]), float(next_state.obs[1]))
    speed_drop = math.hypot(float(state.obs[2]), float(state.obs[3])) - math.hypot(
        float(next_state.obs[2]), float(next_state.obs[3])
    )
    components = {
        "progress": PROGRESS_WEIGHT * (distance_before - distance_after),
        "impact": -IMPACT_WEIGHT * max(0.0, speed_drop - MAX_BRAKING),
        "landed": LANDED_BONUS * (float(landed(next_state)) - float(landed(state))),
    }
    return sum(components.values()), components
