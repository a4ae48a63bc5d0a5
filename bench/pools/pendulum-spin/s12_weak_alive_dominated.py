"""Hand-written pool entry, label: weak. A big constant alive bonus beside |theta_dot| scaled tiny: the speed signal
drowns under the constant (and pays either direction), so there is next to nothing to learn from."""


def compute_reward(state, action, next_state):
    theta_dot = float(next_state.obs[2])
    components = {
        "alive": 10.0,
        "speed": 0.001 * abs(theta_dot),
        "effort": -0.0001 * float(action[0]) ** 2,
    }
    return sum(components.values()), components
