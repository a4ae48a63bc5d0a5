"""Hand-written pool entry, label: good. Energy pumping: the gain in the system's mechanical energy (links of 1 kg
and 1 m, centres at 0.5 m, moment of inertia 1), capped at what the bar needs, under a time cost and a bonus at the
bar."""

import math

G, LC, INERTIA = 9.8, 0.5, 1.0
E_BAR = G * (LC + 1.0 + LC)  # potential energy with both links pointing up, about the bar's


def _energy(obs):
    theta1 = math.atan2(float(obs[1]), float(obs[0]))
    theta2 = math.atan2(float(obs[3]), float(obs[2]))
    w1, w2 = float(obs[4]), float(obs[5])
    potential = -G * LC * math.cos(theta1) - G * (math.cos(theta1) + LC * math.cos(theta1 + theta2))
    kinetic = (
        0.5 * (LC**2 + INERTIA) * w1**2
        + 0.5 * (w1**2 + LC**2 * (w1 + w2) ** 2 + 2.0 * LC * w1 * (w1 + w2) * math.cos(theta2))
        + 0.5 * INERTIA * (w1 + w2) ** 2
    )
    return min(potential + kinetic, E_BAR)


def compute_reward(state, action, next_state):
    cos1, sin1, cos2, sin2 = (float(v) for v in next_state.obs[:4])
    height = -cos1 - (cos1 * cos2 - sin1 * sin2)
    components = {
        "time": -1.0,
        "energy_gain": 0.1 * (_energy(next_state.obs) - _energy(state.obs)),
        "bar": 20.0 if height > 1.0 else 0.0,
    }
    return sum(components.values()), components
