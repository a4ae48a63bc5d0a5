"""Hand-written pool entry, label: good. A bonus for every step the tip is above 1.1 m, the cart kept off the
rail ends."""


def compute_reward(state, action, next_state):
    tip_height = float(next_state.site("tip").pos[2])
    slider = float(next_state.joint("slider").qpos)
    components = {
        "high": 1.0 if tip_height > 1.1 else 0.2,
        "rail": -0.5 * max(abs(slider) - 0.6, 0.0),
    }
    return sum(components.values()), components
