"""Hand-written pool entry, label: good. The torso's velocity along +x, paid only while the torso is between 0.3 and
1.0 m high (on its legs), a small bonus for that height band and a control cost."""

import numpy as np

LOW, HIGH = 0.3, 1.0  # m
CONTROL = 0.05


def compute_reward(state, action, next_state):
    torso = next_state.body("torso")
    on_legs = LOW <= float(torso.pos[2]) <= HIGH
    components = {
        "forward": float(torso.linvel[0]) if on_legs else 0.0,
        "on_legs": 0.2 if on_legs else 0.0,
        "control": -CONTROL * float(np.sum(np.square(action))),
    }
    return sum(components.values()), components
