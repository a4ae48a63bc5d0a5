# task: inverted-double-pendulum-balance
import math


def compute_reward(state, action, next_state):
    a1 = next_state.joint("hinge").qpos
    a2 = next_state.joint("hinge2").qpos
    upright = math.cos(a1) + math.cos(a1 + a2)
    cart = next_state.joint("slider").qpos
    return upright - 0.05 * cart * cart, {"upright": upright, "cart": -0.05 * cart * cart}
