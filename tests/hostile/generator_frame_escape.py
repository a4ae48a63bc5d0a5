# attack: reach real builtins through a generator's gi_frame.f_back.f_globals
# gate: reject
# outcome: raised
# expect: rejected by ast-gate (gi_frame); contained: landlock
def compute_reward(state, action, next_state):
    gen = (x for x in [1])
    frame = gen.gi_frame.f_back
    real_open = frame.f_globals["__builtins__"]["open"] if isinstance(frame.f_globals["__builtins__"], dict) \
        else frame.f_globals["__builtins__"].open
    with real_open("/tmp/rewardsmith-hostile-escape-frame", "w") as fh:
        fh.write("pwned")
    return 0.0, {}
