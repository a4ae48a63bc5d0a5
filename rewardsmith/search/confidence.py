"""How sure the search is that it picked the best trained candidate.

Among the candidates trained to the winner's budget, a bootstrap estimates P(winner's mean > peer's mean) for each
peer. Each draw resamples every candidate's evaluation episodes with replacement (and, for a candidate trained on
two seeds, the seeds first, then each drawn seed's episodes); a candidate trained on one seed also gets a normal
draw of the between-seed floor's sd (`rewardsmith.search.spread`), since one seed's episodes cannot show how much
another training would differ. A candidate whose episodes are not available is drawn as normal(mean, se).

The answer is P(winner's mean > every peer's mean) in the same draws, and the peer the winner is least sure to
beat (`Confidence`); below `SURE` the final table names that peer as the runner-up a user may want to train more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from rewardsmith.run_folder.folder import RunFolder
from rewardsmith.run_folder.records import CandidateRecord
from rewardsmith.search.evidence import Evidence
from rewardsmith.search.selection import Pick, standard_error

DRAWS = 2000
SURE = 0.9
"""Below this probability the runner-up is named beside the result."""


@dataclass(frozen=True)
class Sample:
    """What one candidate's fitness is drawn from: per-seed episode fitness, or (mean, se) when they are missing."""

    seeds: tuple[tuple[float, ...], ...]
    mean: float = 0.0
    se: float = 0.0


@dataclass(frozen=True)
class Confidence:
    """P(winner's mean > peer's mean) per peer, and `p_best`: P(winner's mean > every peer's) in the same draws."""

    winner: str
    peers: dict[str, float]
    method: str
    p_best: float | None = None

    @property
    def runner_up(self) -> str | None:
        """The peer the winner is least sure to beat."""
        return min(self.peers, key=lambda k: self.peers[k]) if self.peers else None

    def as_dict(self) -> dict[str, Any]:
        """For summary.json's selection."""
        return {"p_best": self.p_best, "runner_up": self.runner_up, "peers": self.peers, "method": self.method}


def draw_means(sample: Sample, sd: float, draws: int, rng: np.random.Generator) -> np.ndarray:
    """`draws` bootstrap means of one candidate (module docstring)."""
    seeds = [np.asarray(s, dtype=float) for s in sample.seeds if len(s)]
    if not seeds:
        return rng.normal(sample.mean, sample.se, draws) + (rng.normal(0.0, sd, draws) if sd > 0 else 0.0)
    if len(seeds) == 1:
        e = seeds[0]
        means = e[rng.integers(0, len(e), (draws, len(e)))].mean(axis=1)
        return means + (rng.normal(0.0, sd, draws) if sd > 0 else 0.0)
    picks = rng.integers(0, len(seeds), (draws, len(seeds)))
    out = np.zeros(draws)
    for k in range(len(seeds)):
        per_seed = np.stack([s[rng.integers(0, len(s), (draws, len(s)))].mean(axis=1) for s in seeds], axis=1)
        out += per_seed[np.arange(draws), picks[:, k]]
    return out / len(seeds)


def bootstrap(
    samples: dict[str, Sample],
    winner: str,
    sd: float = 0.0,
    draws: int = DRAWS,
    seed: int = 0,
    *,
    sd_known: bool = False,
) -> Confidence:
    """P(winner > each peer) over `draws` bootstrap draws (ties count half). `sd_known`: the between-seed `sd` was
    measured or given (an sd of 0 then means the seeds differed by no more than their episodes), not unknown."""
    rng = np.random.default_rng(seed)
    means = {k: draw_means(v, sd, draws, rng) for k, v in samples.items()}
    peers = {
        k: float(np.mean((means[winner] > m) + 0.5 * (means[winner] == m))) for k, m in means.items() if k != winner
    }
    others = [m for k, m in means.items() if k != winner]
    joint = float(np.mean(means[winner] > np.max(np.stack(others), axis=0))) if others else None
    two = any(sum(1 for s in v.seeds if len(s)) > 1 for v in samples.values())
    method = f"bootstrap over episodes{' and seeds' if two else ''} ({draws} draws)" + (
        f", one-seed candidates with a normal seed draw of sd {sd:.3g}"
        if sd > 0
        else ", seed-to-seed spread measured: none beyond the episodes' noise"
        if sd_known
        else ", no seed-to-seed spread known"
    )
    return Confidence(winner, peers, method, joint)


def sample_of(folder: RunFolder, record: CandidateRecord, evidence: Evidence | None) -> Sample:
    """A candidate's sample: its verified evaluation's episodes and, where it has them, its other seeds'."""
    evaluation = folder.cand_of(record).evaluation()
    first = tuple(evaluation.fitness) if evaluation is not None else ()
    repeat = evidence.repeat(record.id, record.timesteps) if evidence else None
    seeds = (first, *(e for e in repeat.episodes[1:] if e)) if repeat is not None else (first,)
    return Sample(seeds, float(record.fitness or 0.0), standard_error(record))


def confidence(
    folder: RunFolder, records: list[CandidateRecord], verdict: Pick, evidence: Evidence | None
) -> Confidence | None:
    """The bootstrap for a run's pick among the candidates at the winner's budget; None without a peer."""
    winner = next((r for r in records if r.id == verdict.winner), None)
    if winner is None:
        return None
    peers = [
        r
        for r in records
        if r.status == "trained" and r.fitness is not None and r.timesteps == winner.timesteps and r.id != winner.id
    ]
    if not peers:
        return None
    floor = evidence.floor(winner.timesteps) if evidence is not None else None
    samples = {r.id: sample_of(folder, r, evidence) for r in [winner, *peers]}
    sd = floor.sd if floor is not None else 0.0
    return bootstrap(samples, winner.id, sd, sd_known=floor is not None and floor.how != "none")


def describe_confidence(data: dict[str, Any] | None) -> str:
    """The final table's line: "P(best) 0.97" or "P(best) 0.62: runner-up 1.3 (P 0.62 that 1.2 beats it)"."""
    if not data or data.get("p_best") is None:
        return "-"
    p, runner = float(data["p_best"]), data.get("runner_up")
    line = f"P(winner is the best at its budget) {p:.2f}"
    if p < SURE and runner:
        p_runner = (data.get("peers") or {}).get(runner)
        beats = f" (P {p_runner:.2f} that the winner beats it)" if isinstance(p_runner, (int, float)) else ""
        line += f"; runner-up {runner}{beats} could be as good: training both longer or on more seeds would tell"
    return f"{line} ({data.get('method', 'bootstrap')})"
