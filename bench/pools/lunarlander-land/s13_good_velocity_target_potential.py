"""Hand-written pool entry, label: good. Potential-based progress on position and velocity: closing the distance
to the pad, and matching a target velocity that points at the pad and shrinks to zero there (so the lander
arrives slowly); the velocity match is credited only as fast as the engines can brake, so an impact refunds
nothing; legs down on the pad and a rest bonus, both as potential differences; a small fuel cost."""

import math

POSITION_WEIGHT = 50.0
VELOCITY_WEIGHT = 50.0
APPROACH_GAIN = 1.0  # target velocity (obs units) per unit of offset from the pad
MAX_APPROACH_SPEED = 0.5  # the target velocity's largest magnitude
MAX_BRAKING = 0.05
LEG_WEIGHT = 10.0
REST_BONUS = 20.0
FUEL_WEIGHT = 0.1


def velocity_error(obs):
    x, y, vx, vy = (float(v) for v in obs[0:4])
    tx, ty = -APPROACH_GAIN * x, -APPROACH_GAIN * max(y, 0.0)
    norm = math.hypot(tx, ty)
    if norm > MAX_APPROACH_SPEED:
        tx, ty = tx * MAX_APPROACH_SPEED / norm, ty * MAX_APPROACH_SPEED / norm
    return math.hypot(vx - tx, vy - ty)


def contact_potential(obs):
    on_pad = abs(float(obs[0])) < 0.2 and float(obs[1]) > -0.02
    legs = float(obs[6]) + float(obs[7])
    still = math.hypot(float(obs[2]), float(obs[3])) < 0.01 and abs(float(obs[5])) < 0.01
    if not on_pad:
        return 0.0
    return LEG_WEIGHT * legs + (REST_BONUS if legs == 2.0 and still else 0.0)


def compute_reward(state, action, next_state):
    before, after = state.obs, next_state.obs
    distance_before = math.hypot(float(before[0]), float(before[1]))
    distance_after = math.hypot(float(after[0]), float(after[1]))
    tracking_gain = velocity_error(before) - velocity_error(after)
    components = {
        "position": POSITION_WEIGHT * (distance_before - distance_after),
        "velocity": VELOCITY_WEIGHT * min(tracking_gain, MAX_BRAKING),
        "contact": contact_potential(after) - contact_potential(before),
        "fuel": -FUEL_WEIGHT * (max(float(action[0]), 0.0) + 0.1 * abs(float(action[1]))),
    }
    return sum(components.values()), components
