"""Hand-written pool entry, label: good. The repair of the NaN: the square root of the height clipped at
0, so the descent profile (target falling speed shrinking as sqrt of the height) is defined on the ground too;
progress towards the pad, the impact penalty and the landing bonus kept."""

import math

import numpy as np

APPROACH_WEIGHT = 20.0
PROFILE_WEIGHT = 0.5
DESCENT_GAIN = 0.4  # target downward speed (obs units) per sqrt of height
IMPACT_WEIGHT = 30.0
MAX_BRAKING = 0.05
LANDED_BONUS = 30.0


def speed(obs):
    return math.hypot(float(obs[2]), float(obs[3]))


def landed(obs):
    legs = float(obs[6]) + float(obs[7])
    return legs == 2.0 and abs(float(obs[0])) < 0.2 and float(obs[1]) > -0.02 and speed(obs) < 0.01


def compute_reward(state, action, next_state):
    obs = next_state.obs
    target_vy = -DESCENT_GAIN * float(np.sqrt(max(float(obs[1]), 0.0)))
    distance_before = math.hypot(float(state.obs[0]), float(state.obs[1]))
    distance_after = math.hypot(float(obs[0]), float(obs[1]))
    components = {
        "approach": APPROACH_WEIGHT * (distance_before - distance_after),
        "profile": -PROFILE_WEIGHT * abs(float(obs[3]) - target_vy),
        "impact": -IMPACT_WEIGHT * max(0.0, speed(state.obs) - speed(obs) - MAX_BRAKING),
        "landed": LANDED_BONUS * (float(landed(obs)) - float(landed(state.obs))),
    }
    return sum(components.values()), components
