"""The sandbox for generated reward code.

- `policy`: the AST gate and the reward loader (small builtins, numpy view); early, not the boundary.
- `launch`: starts workers clean and supervises them (parent side): timeouts, stalls, folder quota.
- `forkserver`: warm workers: a clean, pre-imported interpreter that forks one fresh worker per job.
- `interrupt`: SIGINT/SIGTERM stop every worker promptly (`STOP`, `interruptible`).
- `lockdown`: locks a worker down (netns, rlimits, Landlock, uid drop, seccomp).
- `landlock_rules`, `syscall_filter`, `capabilities`: the kernel layers lockdown applies.
- `probe`: proves which layers hold on this machine (`rewardsmith doctor`).
"""
