# task: lunarlander-land
import math


def potential(obs) -> float:
    return -100.0 * math.sqrt(float(obs[0]) ** 2 + float(obs[1]) ** 2) - 100.0 * math.sqrt(
        float(obs[2]) ** 2 + float(obs[3]) ** 2
    ) - 100.0 * abs(float(obs[4]))


def compute_reward(state, action, next_state):
    shaping = potential(next_state.obs) - potential(state.obs)
    main, side = float(action[0]), float(action[1])
    fuel = -0.3 * max(main, 0.0) - (0.03 if abs(side) > 0.5 else 0.0)
    return shaping + fuel, {"shaping": shaping, "fuel": fuel}
