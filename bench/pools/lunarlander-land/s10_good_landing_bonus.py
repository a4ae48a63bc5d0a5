"""Hand-written pool entry, label: good. Light shaping towards the pad, a cost on falling faster than a safe
descent speed that shrinks near the ground, legs down on the pad, and most of the reward in the env's landing
event: a large bonus on coming to rest on the pad, paid as a potential difference (once, taken back if the
lander lifts off again), standing on its legs (a crash leaves the body lower)."""

import math

APPROACH_WEIGHT = 10.0
DESCENT_WEIGHT = 0.5
SAFE_DESCENT = 0.1  # obs units of downward speed allowed at the pad's height
SAFE_DESCENT_SLOPE = 0.5  # more allowed per unit of height
LEG_WEIGHT = 5.0
LANDING_BONUS = 50.0


def on_pad(obs):
    return abs(float(obs[0])) < 0.2 and float(obs[1]) > -0.02


def landed(obs):
    speed = math.hypot(float(obs[2]), float(obs[3]))
    legs = float(obs[6]) + float(obs[7])
    return on_pad(obs) and legs == 2.0 and speed < 0.01 and abs(float(obs[5])) < 0.01


def legs_on_pad(obs):
    return float(obs[6]) + float(obs[7]) if on_pad(obs) else 0.0


def compute_reward(state, action, next_state):
    before, after = state.obs, next_state.obs
    distance_before = math.hypot(float(before[0]), float(before[1]))
    distance_after = math.hypot(float(after[0]), float(after[1]))
    safe = SAFE_DESCENT + SAFE_DESCENT_SLOPE * max(float(after[1]), 0.0)
    components = {
        "approach": APPROACH_WEIGHT * (distance_before - distance_after),
        "descent": -DESCENT_WEIGHT * max(0.0, -float(after[3]) - safe),
        "touchdown": LEG_WEIGHT * (legs_on_pad(after) - legs_on_pad(before)),
        "landing": LANDING_BONUS * (float(landed(after)) - float(landed(before))),
    }
    return sum(components.values()), components
