"""The sandbox for generated reward code.

- `policy`: the AST gate (`check_source`) and the reward loader (`load_reward`).
- `allowlist`: what gated code may name: numpy, typing and `__future__` allowlists, the attribute rules.
- `views`: what gated code runs against: small builtins, the restricted importer, the module views.
- `launch`: starts workers clean and supervises them (parent side): timeouts, stalls, folder quota.
- `command`: a worker's command line: `python -I` with the parent's package folders (venv, `--user`, PYTHONPATH).
- `proc`: what /proc says about a process (its state, whether it is alive).
- `forkserver`: warm workers: a clean, pre-imported interpreter that forks one fresh worker per job.
- `interrupt`: SIGINT/SIGTERM stop every worker promptly (`STOP`, `interruptible`).
- `lockdown`: locks a worker down (netns, ipc-ns, pids cgroup, rlimits, Landlock, uid drop, seccomp); its
  docstring says, per layer, what it promises and what is lost without it.
- `landlock_rules`, `syscall_filter`, `capabilities`: the kernel layers lockdown applies.
- `probe`: proves which layers hold on this machine (`rewardsmith doctor`).

Threat model. Reward code is written by an LLM and treated as hostile; it never runs in the parent (which
holds API keys and the run folder). The judge of a candidate is the separate evaluation worker, which never
loads the candidate's code, so no layer below is what keeps the fitness honest. Each layer promises:

- Process separation (`launch`, `forkserver`): the code runs in a worker started clean (`python -I`, no
  secrets in its environment, its own session, capped output), killed on time, stall or folder quota, and
  every file it could have written is read by the parent as hostile input. This always holds.
- The gate (`policy`, `allowlist`, `views`; on unless a test turns it off): code it passes names only
  allowlisted modules (numpy, math, typing views), builtins and attributes. It promises that such code cannot
  reach, from Python, raw memory (no array view over memory the code does not own: the `ndarray`
  constructor, `frombuffer`, `stride_tricks`, `.view`, `.resize`, `.ctypes`, `__array_interface__`, ...),
  native pointers, frames, the import system, files or the real numpy/os modules. It does not promise anything
  about numpy's or CPython's own memory bugs, nor about time or memory use (the OS layers bound those). Its
  findings go back to the LLM as repair requests.
- The OS layers (`lockdown`, applied in the worker before the code loads): rlimits (CPU, memory, files,
  processes), a pids cgroup (the thread and process limit that binds uid 0 too), an empty network namespace, its
  own IPC namespace (no SysV object outlives the worker), Landlock (read-only everywhere, writable only in the candidate's
  folder), a uid drop where the interpreter's folder allows it, no capabilities, and a seccomp filter (no
  sockets, exec, fork, ptrace, signals to other processes, limit changes, mount, bpf, io_uring, SysV IPC). They promise
  that even native code (a gate bypass, a numpy bug) cannot touch the network, other processes or files
  outside its folder. Which of them hold depends on the kernel and on root; `doctor` shows it. A GPU training
  worker's seccomp filter allows fork and exec (XLA starts `ptxas`); there Landlock alone keeps the candidate's
  thread and its descendants from executing any file, and only where a process limit holds (`lockdown`).

When one fails: a gate bypass gives native code inside the worker, which the OS layers still contain (the
hostile suite runs every program with the gate off to prove it); where OS layers are missing (no Landlock or
seccomp, or uid 0 kept), the gate is the layer that stands, so it must hold on its own (the numpy memory
routes are refused statically, with a finding). A run refuses to start with fewer layers than
`--sandbox-minimum` requires; with both the gate bypassed and an OS layer missing, the code can do what that
layer would have stopped, and only the process separation and the evaluation worker remain.
"""
