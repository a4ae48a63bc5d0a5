"""Hand-written pool entry, label: weak. Greedy: pays the car's position every step (further right is better),
which pulls it straight at a hill its engine cannot climb, with no bonus at the flag."""

POSITION_WEIGHT = 1.0


def compute_reward(state, action, next_state):
    components = {"position": POSITION_WEIGHT * float(next_state.obs[0])}
    return sum(components.values()), components
