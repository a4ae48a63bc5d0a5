# task: halfcheetah-run
LEGS = ["bthigh", "bshin", "bfoot", "fthigh", "fshin", "ffoot"]


def compute_reward(state, action, next_state):
    forward = (next_state.body("torso").pos[0] - state.body("torso").pos[0]) / next_state.dt
    joint_speed = [abs(next_state.joint(name).qvel) for name in LEGS]
    flailing = -0.001 * sum(v * v for v in joint_speed)
    flip = -1.0 if next_state.body("torso").xmat[2, 2] < 0.0 else 0.0
    parts = {"forward": float(forward), "flailing": float(flailing), "flip": flip}
    return float(sum(parts.values())), parts
