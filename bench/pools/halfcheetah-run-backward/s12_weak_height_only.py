"""Hand-written pool entry, label: weak. Only keeps the torso at its standing height: the cheetah learns to stand
still."""


def compute_reward(state, action, next_state):
    height = float(next_state.body("torso").pos[2])
    components = {"height": -abs(height - 0.7)}
    return sum(components.values()), components
