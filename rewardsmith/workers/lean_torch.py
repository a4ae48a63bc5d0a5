"""Process-wide torch settings of the training and evaluation workers: less overhead per call, the same results.

Each worker is its own process, so these settings reach nothing else. Neither changes a number torch computes:
they only skip work around the arithmetic (docs/performance.md, "Fifth round").
"""

from __future__ import annotations


def lean_torch() -> None:
    """One intra-op thread (the workers share the machine's cores), and no argument checks in
    `torch.distributions`: SB3 builds a `Normal` at every policy call and checks its mean, its scale and each
    sampled action against their constraints (about a fifth of a rollout step's policy call). A policy whose
    weights became NaN is still caught: the evaluation worker refuses non-finite weights."""
    import torch

    torch.set_num_threads(1)
    torch.distributions.Distribution.set_default_validate_args(False)
