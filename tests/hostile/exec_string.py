# attack: hide an os import inside exec()
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate (exec); contained: seccomp
def compute_reward(state, action, next_state):
    exec("import os\nimport subprocess\nsubprocess.run(['touch', '/tmp/rewardsmith-hostile-escape'], check=True)")
    return 0.0, {}
