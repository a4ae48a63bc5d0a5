# attack: take over the terminal through component names: OSC 52, screen clear, OSC 8 link, rich markup
# gate: pass
# critic: accepted
# train: accepted
# expect: passes the gate and runs (an honest, if odd, reward); its names are printed inert everywhere
NAME = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b]8;;https://evil.example/\x1b\\x\x1b]8;;\x1b\\[link=https://e.x]m[/link]"


def compute_reward(state, action, next_state):
    value = -0.001 * float((action * action).sum())
    return value, {NAME: value}
