# attack: take over the terminal through an exception message: OSC 52 clipboard write, screen clear, OSC 8 link,
# attack: rich markup
# gate: pass
# critic: exception
# train: rejected
# expect: passes the gate (strings are legal); rejected for its exception; printed inert (escaped, no markup)
PAYLOAD = (
    "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[H"
    "\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\"
    "[link=https://evil.example]markup[/link][bold red]FAKE OK[/]"
)


def compute_reward(state, action, next_state):
    raise ValueError(PAYLOAD)
