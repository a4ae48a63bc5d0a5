"""Example reward for `acrobot-swing-up`: raise the free end (potential-based), pay for time, a bonus at the bar.

Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""


def _height(obs):
    """The free end's height above the pivot (m): -2 hanging, 1 at the bar."""
    cos1, sin1, cos2, sin2 = (float(v) for v in obs[:4])
    return -cos1 - (cos1 * cos2 - sin1 * sin2)


def compute_reward(state, action, next_state):
    before, after = _height(state.obs), _height(next_state.obs)
    components = {
        "time_cost": -1.0,  # the episode ends at the bar: every step before it costs
        "height_gain": 5.0 * (after - before),  # sums to 5 x the height gained: no reward for hovering
        "reached_bar": 10.0 if after > 1.0 else 0.0,
    }
    return sum(components.values()), components
