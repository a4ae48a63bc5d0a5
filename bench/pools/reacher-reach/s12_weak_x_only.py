"""Hand-written pool entry, label: weak. Only the x-gap to the target: the y-gap, which the task also needs closed,
is never paid for."""


def compute_reward(state, action, next_state):
    gap_x = float(next_state.body("fingertip").pos[0] - next_state.body("target").pos[0])
    components = {"x_gap": -abs(gap_x)}
    return sum(components.values()), components
