"""Hand-written pool entry, label: good. Staged: survive; while away from the spot, get paid for closing the distance
this step; once at the spot, a bonus for staying there and a cost for moving."""

SPOT = 1.0


def compute_reward(state, action, next_state):
    before = abs(float(state.obs[0]) - SPOT)
    after = abs(float(next_state.obs[0]) - SPOT)
    near = after < 0.2
    components = {
        "alive": 1.0,
        "approach": 0.0 if near else 20.0 * (before - after),
        "hold": 1.5 if near else 0.0,
        "still": -0.5 * abs(float(next_state.obs[1])) if near else 0.0,
    }
    return sum(components.values()), components
