# attack: np.save into /tmp
# gate: reject
# outcome: raised
# expect: rejected by ast-gate (np.save not in the view); contained: landlock
import numpy as np


def compute_reward(state, action, next_state):
    np.save("/tmp/rewardsmith-hostile-escape-npsave", np.asarray(state))
    return 0.0, {}
