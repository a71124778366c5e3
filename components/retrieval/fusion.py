"""Joining ranked lists: Reciprocal Rank Fusion and the convex combination of normalised scores.

RRF (Cormack et al., 2009): score(d) = Σ_r w_r / (k + rank_r(d)), ranks from 1. It needs no
score calibration between retrievers, which is why it is the default way to join dense and
lexical result lists.

Convex combination (Bruch et al., 2023, "An Analysis of Fusion Functions for Hybrid
Retrieval"): each list's scores min-max-scaled to 0..1, then Σ_r w_r · s_r(d) / Σ_r w_r over
the lists that returned something. It keeps how far apart the scores are, which RRF throws
away; with equal weights it beat RRF on both SciFact and JSQuAD here (README, Measurements).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def rrf(
    rankings: Mapping[str, Sequence[str]], *, k: float = 60.0, weights: Mapping[str, float] | None = None
) -> list[tuple[str, float]]:
    """Fuse ranked id lists; ties break on the id so the order is deterministic."""
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    scores: dict[str, float] = {}
    for name, ids in rankings.items():
        w = 1.0 if weights is None else float(weights.get(name, 1.0))
        if w == 0:
            continue
        for rank, pid in enumerate(ids, start=1):
            scores[pid] = scores.get(pid, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda x: (-x[1], x[0]))


def minmax(scored: Sequence[tuple[str, float]]) -> dict[str, float]:
    """Scores scaled to 0..1 within one list: its best 1, its worst 0 (all 1 when they are equal)."""
    if not scored:
        return {}
    hi, lo = max(s for _, s in scored), min(s for _, s in scored)
    span = hi - lo
    return {pid: (s - lo) / span if span > 0 else 1.0 for pid, s in scored}


def convex(
    lists: Mapping[str, Sequence[tuple[str, float]]], *, weights: Mapping[str, float] | None = None
) -> list[tuple[str, float]]:
    """Fuse (id, raw score) lists by the weighted mean of min-max-scaled scores; 0..1, ties break on the id."""
    active = {name: items for name, items in lists.items() if items and (weights or {}).get(name, 1.0) > 0}
    total = sum(float((weights or {}).get(name, 1.0)) for name in active)
    if total <= 0:
        return []
    scores: dict[str, float] = {}
    for name, items in active.items():
        w = float((weights or {}).get(name, 1.0)) / total
        for pid, s in minmax(items).items():
            scores[pid] = scores.get(pid, 0.0) + w * s
    return sorted(scores.items(), key=lambda x: (-x[1], x[0]))
