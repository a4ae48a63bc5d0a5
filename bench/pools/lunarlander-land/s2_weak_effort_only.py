"""Hand-written pool entry, label: weak. Only the fuel cost, as Gymnasium charges it: the cheapest policy never
fires an engine and falls, and nothing here says where the pad is or that the lander should land softly."""

MAIN_FUEL = 0.3
SIDE_FUEL = 0.03


def compute_reward(state, action, next_state):
    main = (min(max(float(action[0]), 0.0), 1.0) + 1.0) * 0.5 if float(action[0]) > 0.0 else 0.0
    side = min(max(abs(float(action[1])), 0.5), 1.0) if abs(float(action[1])) > 0.5 else 0.0
    components = {
        "main_fuel": -MAIN_FUEL * main,
        "side_fuel": -SIDE_FUEL * side,
    }
    return sum(components.values()), components
