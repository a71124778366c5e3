"""Reciprocal Rank Fusion (Cormack et al., 2009): score(d) = Σ_r w_r / (k + rank_r(d)).

Ranks count from 1. RRF needs no score calibration between retrievers, which is why it is
the default way to join dense and lexical result lists.
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
