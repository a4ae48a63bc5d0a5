"""Hand-written pool entry, label: good. Exponential closeness as a potential: the change of a bump that rises
steeply near the pad, times levelness, plus slowness credited only near the pad, legs down on the pad and a
rest bonus; an impact (speed lost faster than the engines can brake) costs more than the slowness it earns,
so the lander must brake rather than hit the ground."""

import math

CLOSE_WEIGHT = 30.0
CLOSE_TEMP = 0.7  # obs units of distance to the pad
LEVEL_TEMP = 0.3  # rad
SLOW_WEIGHT = 20.0
SLOW_TEMP = 0.3  # obs units of speed
LEG_WEIGHT = 10.0
REST_BONUS = 20.0
IMPACT_WEIGHT = 30.0
MAX_BRAKING = 0.05


def speed(obs):
    return math.hypot(float(obs[2]), float(obs[3]))


def potential(obs):
    x, y = float(obs[0]), float(obs[1])
    closeness = math.exp(-math.hypot(x, y) / CLOSE_TEMP)
    levelness = math.exp(-abs(float(obs[4])) / LEVEL_TEMP)
    on_pad = abs(x) < 0.2 and y > -0.02
    legs = float(obs[6]) + float(obs[7])
    resting = on_pad and legs == 2.0 and speed(obs) < 0.01 and abs(float(obs[5])) < 0.01
    return (
        CLOSE_WEIGHT * closeness * levelness
        + SLOW_WEIGHT * closeness * math.exp(-speed(obs) / SLOW_TEMP)
        + (LEG_WEIGHT * legs if on_pad else 0.0)
        + (REST_BONUS if resting else 0.0)
    )


def compute_reward(state, action, next_state):
    components = {
        "closeness": potential(next_state.obs) - potential(state.obs),
        "impact": -IMPACT_WEIGHT * max(0.0, speed(state.obs) - speed(next_state.obs) - MAX_BRAKING),
    }
    return sum(components.values()), components
