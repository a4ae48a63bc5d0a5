"""Hand-written pool entry, label: good. Staged, as the change of a potential whose later phases weigh more: line
up over the pad (horizontal offset), then descend over it (height credited only above the pad), then put both
legs down on the pad, then come to rest there; speed lost faster than the engines can brake (hitting the
ground) costs, so dropping onto the pad does not pay like landing on it."""

import math

ALIGN_WEIGHT = 10.0
DESCEND_WEIGHT = 20.0
LEG_WEIGHT = 10.0
REST_BONUS = 30.0
IMPACT_WEIGHT = 30.0
MAX_BRAKING = 0.05  # the most speed (obs units) the engines take off in one step
START_HEIGHT = 1.5  # obs[1] at the start is about 1.4
PAD_HALF_WIDTH = 0.2
OVER_PAD_WIDTH = 0.4  # the descent stage fades in as |x| goes from this to 0
STANDING_HEIGHT = -0.02  # a body on the ground (a crash) sits lower than this


def speed(obs):
    return math.hypot(float(obs[2]), float(obs[3]))


def potential(obs):
    x, y = float(obs[0]), float(obs[1])
    over_pad = max(0.0, 1.0 - abs(x) / OVER_PAD_WIDTH)
    lowness = 1.0 - min(max(y, 0.0), START_HEIGHT) / START_HEIGHT
    on_pad = abs(x) < PAD_HALF_WIDTH and y > STANDING_HEIGHT
    legs = float(obs[6]) + float(obs[7])
    resting = on_pad and legs == 2.0 and speed(obs) < 0.01 and abs(float(obs[5])) < 0.01
    return (
        -ALIGN_WEIGHT * min(abs(x), 1.0)
        + DESCEND_WEIGHT * over_pad * lowness
        + (LEG_WEIGHT * legs if on_pad else 0.0)
        + (REST_BONUS if resting else 0.0)
    )


def compute_reward(state, action, next_state):
    components = {
        "stages": potential(next_state.obs) - potential(state.obs),
        "impact": -IMPACT_WEIGHT * max(0.0, speed(state.obs) - speed(next_state.obs) - MAX_BRAKING),
    }
    return sum(components.values()), components
