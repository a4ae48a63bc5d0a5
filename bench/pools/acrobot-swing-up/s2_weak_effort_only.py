"""Hand-written pool entry, label: weak. Only a torque cost: it teaches the policy to stop driving the joint."""

TORQUES = (-1.0, 0.0, 1.0)


def compute_reward(state, action, next_state):
    torque = TORQUES[int(action)]
    components = {"effort": -abs(torque)}
    return sum(components.values()), components
