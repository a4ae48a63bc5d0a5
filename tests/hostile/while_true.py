# attack: never return (plain busy loop; legal Python)
# gate: pass
# critic: killed
# train: killed
# expect: passes the gate; contained: wall timeout kills the session
def compute_reward(state, action, next_state):
    total = 0.0
    while True:
        total += 1.0
