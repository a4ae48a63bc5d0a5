"""Hand-written pool entry, label: weak. A large bonus for every step the episode lasts, with the progress term
and the landing bonus scaled small: coming to rest ends the episode, so staying airborne for all 1000 steps
(5 a step) pays far more than landing, and nothing but luck puts the lander on the pad."""

import math

ALIVE_BONUS = 5.0
PROGRESS_WEIGHT = 1.0
LANDED_BONUS = 10.0


def landed(obs):
    speed = math.hypot(float(obs[2]), float(obs[3]))
    legs = float(obs[6]) + float(obs[7])
    return legs == 2.0 and abs(float(obs[0])) < 0.2 and speed < 0.01


def compute_reward(state, action, next_state):
    distance_before = math.hypot(float(state.obs[0]), float(state.obs[1]))
    distance_after = math.hypot(float(next_state.obs[0]), float(next_state.obs[1]))
    components = {
        "alive": ALIVE_BONUS,
        "progress": PROGRESS_WEIGHT * (distance_before - distance_after),
        "landed": LANDED_BONUS if landed(next_state.obs) else 0.0,
    }
    return sum(components.values()), components
