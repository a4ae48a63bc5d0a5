"""Hand-written pool entry, label: good. Staged: while the energy (theta_dot^2 / 2 + 15 cos theta) is below what it
takes to clear the top, pump it up; once above, pay positive angular speed, plus a bonus for being past it."""

E_TOP = 15.0  # energy of resting upright: Pendulum-v1 has theta_ddot = 15 sin(theta) + 3 u
E_SCALE = 30.0  # from hanging at rest (-15) to upright at rest (+15)


def compute_reward(state, action, next_state):
    cos_theta, theta_dot = float(next_state.obs[0]), float(next_state.obs[2])
    energy = 0.5 * theta_dot**2 + E_TOP * cos_theta
    spinning = energy > E_TOP
    components = {
        "pump": 0.0 if spinning else (energy - E_TOP) / E_SCALE,
        "spin": theta_dot / 8.0 if spinning else 0.0,
        "over_top_bonus": 0.5 if spinning and theta_dot > 0.0 else 0.0,
        "effort": -0.001 * float(action[0]) ** 2,
    }
    return sum(components.values()), components
