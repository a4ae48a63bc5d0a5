"""Hand-written pool entry, label: good. Potential-based shaping on the height (gamma * phi(s') - phi(s), with
phi = cos theta), plus a bonus for each step spent near the top and slow."""

import math

GAMMA = 0.99
SHAPING_SCALE = 10.0
NEAR_TOP = 0.5  # rad


def compute_reward(state, action, next_state):
    phi, phi_next = float(state.obs[0]), float(next_state.obs[0])
    theta = math.atan2(float(next_state.obs[1]), float(next_state.obs[0]))
    theta_dot = float(next_state.obs[2])
    components = {
        "height_progress": SHAPING_SCALE * (GAMMA * phi_next - phi),
        "held_at_top": 1.0 if abs(theta) < NEAR_TOP and abs(theta_dot) < 2.0 else 0.0,
    }
    return sum(components.values()), components
