"""A reward in the style LLMs write for "make the half cheetah run forward" (used by the benchmarks)."""

import math

import numpy as np


def compute_reward(state, action, next_state):
    torso_before = state.body("torso").pos
    torso_after = next_state.body("torso").pos
    forward_velocity = (torso_after[0] - torso_before[0]) / next_state.dt
    upright = next_state.body("torso").xmat[2, 2]
    control_cost = 0.1 * float(np.sum(np.square(action)))
    joint_speed = float(np.mean(np.abs(next_state.qvel[3:])))

    forward_reward = 1.0 * forward_velocity
    upright_bonus = 0.2 * max(float(upright), 0.0)
    smoothness_penalty = -0.01 * math.tanh(joint_speed / 10.0)

    components = {
        "forward_reward": float(forward_reward),
        "upright_bonus": float(upright_bonus),
        "control_cost": -control_cost,
        "smoothness_penalty": float(smoothness_penalty),
    }
    total = float(sum(components.values()))
    return total, components
