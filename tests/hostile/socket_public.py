# attack: send a DNS packet to 1.1.1.1:53 (must fail before any packet leaves)
# gate: reject
# critic: exception
# train: rejected
# expect: rejected by ast-gate; contained: seccomp (socket EPERM) and netns
import socket


def compute_reward(state, action, next_state):
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.sendto(b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00", ("1.1.1.1", 53))
    return 0.0, {}
