"""Hand-written pool entry, label: weak. A large constant alive bonus per step and a tiny forward term: the bonus
dwarfs any speed the ant can reach, so it learns only to stay up."""


def compute_reward(state, action, next_state):
    components = {"alive": 5.0, "forward": 0.02 * float(next_state.body("torso").linvel[0])}
    return sum(components.values()), components
