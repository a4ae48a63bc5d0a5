"""Example reward for `lunarlander-land`: fly to the pad, slow down, stay level, and settle on both legs.

Gymnasium's LunarLander shaping, read from the observation (no MuJoCo model): the change of a potential
that grows as the lander gets closer to the pad centre (obs[0:2]), slower (obs[2:4]) and more level
(obs[4]), with each leg on the ground (obs[6], obs[7]) and, once both legs are down on the pad (|x| < 0.2,
the flags at about +-0.2 in obs units) at near-zero speed, at rest. Being a potential difference, hovering
or bouncing in and out of contact earns nothing. The observation does not show a crash, so slowing down
is credited only as fast as the engines can brake (0.05 speed units a step): an impact that stops the
lander at once does not refund the speed it gained falling. Fuel costs as in Gymnasium (main engine 0.3,
side 0.03 per step at full throttle), so the lander should not waste thrust.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

MAX_BRAKING = 0.05  # the most speed (obs units) the engines take off in one step


def potential_terms(obs):
    """The potential's parts: closeness to the pad, slowness, levelness, legs down, at rest on the pad."""
    x, y, vx, vy, angle = (float(v) for v in obs[0:5])
    legs = float(obs[6]) + float(obs[7])
    speed = math.hypot(vx, vy)
    resting = legs == 2.0 and abs(x) < 0.2 and speed < 0.05 and abs(float(obs[5])) < 0.05
    return {
        "approach_pad": -100.0 * math.hypot(x, y),
        "slow_down": -100.0 * speed,
        "stay_level": -100.0 * abs(angle),
        "legs_down": 10.0 * legs,
        "at_rest_on_pad": 20.0 if resting else 0.0,
    }


def compute_reward(state, action, next_state):
    before, after = potential_terms(state.obs), potential_terms(next_state.obs)
    components = {name: after[name] - before[name] for name in after}
    components["slow_down"] = min(components["slow_down"], 100.0 * MAX_BRAKING)  # braking, not an impact
    main = (min(max(float(action[0]), 0.0), 1.0) + 1.0) * 0.5 if float(action[0]) > 0.0 else 0.0
    side = min(max(abs(float(action[1])), 0.5), 1.0) if abs(float(action[1])) > 0.5 else 0.0
    components["fuel_penalty"] = -(0.3 * main + 0.03 * side)
    return sum(components.values()), components
