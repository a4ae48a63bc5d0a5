"""Example reward for `hopper-backflip`: jump, turn backwards one full turn, then land and stay upright.

Three stages, each shaped: a potential on the backward pitch (capped at one turn, so rocking back and
forth nets nothing and spinning past one turn earns nothing more), a bonus for height while the flip is
not done yet (air time to rotate in), and after a full turn a per-step bonus for standing upright on the
foot (torso at least 1.0 m high, pitch within 0.5 rad of the whole turn). Falls do not end the episode,
so the landing bonus over the rest of the episode is what makes landing worth more than tumbling.
Standalone: numpy and math only, `compute_reward(state, action, next_state) -> (float, dict)`.
"""

import math

import numpy as np

TURN = 2.0 * math.pi


def backward_rotation(state):
    """Backward pitch (rad) of the torso, 0 to one full turn (rooty decreases in a backflip)."""
    return min(max(-float(state.joint("rooty").qpos), 0.0), TURN)


def compute_reward(state, action, next_state):
    before, after = backward_rotation(state), backward_rotation(next_state)
    height = float(next_state.body("torso").pos[2])
    pitch = -float(next_state.joint("rooty").qpos)  # backward turns, unwrapped
    turned = pitch >= TURN - 0.5
    upright_after_flip = turned and abs(pitch - TURN) <= 0.5 and height >= 1.0
    components = {
        "rotate_backward": 10.0 * (after - before),
        "jump_height": 0.0 if turned else 2.0 * max(height - 1.25, 0.0),
        "landed_upright": 2.0 if upright_after_flip else 0.0,
        "effort_penalty": -1e-2 * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
