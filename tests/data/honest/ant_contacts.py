# task: ant-run
import numpy as np

FEET = ("aux_1", "aux_2", "aux_3", "aux_4")


def compute_reward(state, action, next_state):
    speed = float(next_state.body("torso").linvel[0])
    touching = sum(1 for foot in FEET if next_state.touching(foot))
    gait = 0.1 * min(touching, 2)
    effort = -0.01 * float(np.square(action).sum())
    return speed + gait + effort, {"speed": speed, "gait": gait, "effort": effort}
