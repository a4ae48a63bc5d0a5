"""Hand-written pool entry, label: good. The repair of the attribute bug: `.pos` instead of `.position`, the tip
height scaled a little differently."""


def compute_reward(state, action, next_state):
    tip_height = float(next_state.site("tip").pos[2])
    components = {"alive": 1.0, "tip_height": 3.0 * (tip_height - 1.0)}
    return sum(components.values()), components
