"""Hand-written pool entry, label: weak. Only a cost for pushing: it teaches the car to coast in the valley."""


def compute_reward(state, action, next_state):
    components = {"push_cost": -1.0 if int(action) != 1 else 0.0}
    return sum(components.values()), components
