"""Hand-written pool entry, label: good. Gymnasium's own shaping read from the observation: the change of a
potential that grows closer to the pad, more level and with each leg down, plus the speed shed (credited only
as fast as the engines can brake, so an impact that stops the lander at once refunds nothing), a bonus for
coming to rest on the pad (also a potential difference: paid once, taken back on lift-off), and the fuel cost."""

import math

DISTANCE_WEIGHT = 100.0
SPEED_WEIGHT = 100.0
ANGLE_WEIGHT = 100.0
LEG_WEIGHT = 10.0
REST_BONUS = 20.0
MAX_BRAKING = 0.05  # the most speed (obs units) the engines take off in one step
PAD_HALF_WIDTH = 0.2  # the flags at obs[0] = -0.2 and +0.2
STANDING_HEIGHT = -0.02  # obs[1] of a lander up on its legs is about 0; a body on the ground sits lower
MAIN_FUEL = 0.3
SIDE_FUEL = 0.03


def resting_on_pad(obs):
    speed = math.hypot(float(obs[2]), float(obs[3]))
    return (
        float(obs[6]) + float(obs[7]) == 2.0
        and abs(float(obs[0])) < PAD_HALF_WIDTH
        and float(obs[1]) > STANDING_HEIGHT
        and speed < 0.01
        and abs(float(obs[5])) < 0.01
    )


def potential(obs):
    x, y, angle = float(obs[0]), float(obs[1]), float(obs[4])
    return (
        -DISTANCE_WEIGHT * math.hypot(x, y)
        - ANGLE_WEIGHT * abs(angle)
        + LEG_WEIGHT * (float(obs[6]) + float(obs[7]))
        + (REST_BONUS if resting_on_pad(obs) else 0.0)
    )


def compute_reward(state, action, next_state):
    speed_before = math.hypot(float(state.obs[2]), float(state.obs[3]))
    speed_after = math.hypot(float(next_state.obs[2]), float(next_state.obs[3]))
    main = (min(max(float(action[0]), 0.0), 1.0) + 1.0) * 0.5 if float(action[0]) > 0.0 else 0.0
    side = min(max(abs(float(action[1])), 0.5), 1.0) if abs(float(action[1])) > 0.5 else 0.0
    components = {
        "shaping": potential(next_state.obs) - potential(state.obs),
        "slow_down": SPEED_WEIGHT * min(speed_before - speed_after, MAX_BRAKING),
        "fuel": -(MAIN_FUEL * main + SIDE_FUEL * side),
    }
    return sum(components.values()), components
