"""Joining the dense and BM25 rankings: the registry of fusion methods.

Each method is one entry in ``METHODS``: how it joins per-retriever (id, raw score) lists, and
the score a chunk ranked first by every retriever that answered would get, which scales its
scores to 0..1 for users. The graph's Context, the benchmarks and the CLI all read this registry,
so a new method is one entry here.

* ``rrf`` — Reciprocal Rank Fusion (Cormack et al., 2009): Σ_r w_r / (k + rank_r(d)), ranks
  from 1. Needs no score calibration between retrievers; throws away how far apart scores are.
* ``convex`` — the convex combination of min-max-scaled scores (Bruch et al., 2023, "An Analysis
  of Fusion Functions for Hybrid Retrieval"): Σ_r w_r · s_r(d) / Σ_r w_r over the lists that
  returned something. Keeps score gaps; the default, chosen by measurement
  (docs/decisions/0003-convex-fusion.md).

Several phrasings of one query (multi-query search) are fused per phrasing, then merged keeping
each chunk's best fused score.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from components.retrieval.hits import Hit

Scored = Sequence[tuple[str, float]]
"""One retriever's ranking: (point id, raw score), best first."""


@dataclass(frozen=True)
class FusionParams:
    """What a fusion method may use besides the rankings."""

    k: float = 60.0
    """RRF's rank offset; larger flattens rank differences."""
    weights: Mapping[str, float] | None = None
    """Weight per retriever name (``dense``, ``bm25``); missing names weigh 1."""

    def weight(self, name: str) -> float:
        return 1.0 if self.weights is None else float(self.weights.get(name, 1.0))


@dataclass(frozen=True)
class FusionMethod:
    """One way of joining rankings."""

    name: str
    description: str
    join: Callable[[Mapping[str, Scored], FusionParams], list[tuple[str, float]]]
    """Fuse per-retriever rankings into (id, score), best first, ties broken on the id."""
    top_score: Callable[[FusionParams, Sequence[str]], float]
    """The fused score of a chunk ranked first by each of these retrievers (scales scores to 0..1)."""

    def scaled(self, score: float, params: FusionParams, answered: Sequence[str]) -> float:
        """A fused score on the 0..1 scale users see."""
        top = self.top_score(params, answered) or 1.0
        return min(1.0, score / top)


def rrf(
    rankings: Mapping[str, Sequence[str]], *, k: float = 60.0, weights: Mapping[str, float] | None = None
) -> list[tuple[str, float]]:
    """Fuse ranked id lists; ties break on the id so the order is deterministic."""
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    params = FusionParams(k=k, weights=weights)
    scores: dict[str, float] = {}
    for name, ids in rankings.items():
        w = params.weight(name)
        if w == 0:
            continue
        for rank, pid in enumerate(ids, start=1):
            scores[pid] = scores.get(pid, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda x: (-x[1], x[0]))


def minmax(scored: Scored) -> dict[str, float]:
    """Scores scaled to 0..1 within one list: its best 1, its worst 0 (all 1 when they are equal)."""
    if not scored:
        return {}
    hi, lo = max(s for _, s in scored), min(s for _, s in scored)
    span = hi - lo
    return {pid: (s - lo) / span if span > 0 else 1.0 for pid, s in scored}


def convex(lists: Mapping[str, Scored], *, weights: Mapping[str, float] | None = None) -> list[tuple[str, float]]:
    """Fuse (id, raw score) lists by the weighted mean of min-max-scaled scores; 0..1, ties break on the id."""
    params = FusionParams(weights=weights)
    active = {name: items for name, items in lists.items() if items and params.weight(name) > 0}
    total = sum(params.weight(name) for name in active)
    if total <= 0:
        return []
    scores: dict[str, float] = {}
    for name, items in active.items():
        w = params.weight(name) / total
        for pid, s in minmax(items).items():
            scores[pid] = scores.get(pid, 0.0) + w * s
    return sorted(scores.items(), key=lambda x: (-x[1], x[0]))


METHODS: dict[str, FusionMethod] = {
    m.name: m
    for m in (
        FusionMethod(
            name="rrf",
            description="Reciprocal Rank Fusion: ranks only, Σ w/(k + rank)",
            join=lambda lists, p: rrf(
                {n: [pid for pid, _ in items] for n, items in lists.items()}, k=p.k, weights=p.weights
            ),
            top_score=lambda p, answered: sum(p.weight(r) for r in answered) / (p.k + 1),
        ),
        FusionMethod(
            name="convex",
            description="weighted mean of min-max-scaled scores (keeps score gaps)",
            join=lambda lists, p: convex(lists, weights=p.weights),
            top_score=lambda p, answered: 1.0,
        ),
    )
}
DEFAULT = "convex"
#: languages whose scripts differ, so that a chunk in one cannot match a phrasing in the other lexically
CROSS_LINGUAL = frozenset({"ja", "en"})


def get(name: str) -> FusionMethod:
    """The registered method called ``name``; ValueError naming the choices otherwise."""
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(f"fusion must be one of {', '.join(METHODS)}, not {name!r}") from None


def fuse(
    dense: list[list[Hit]],
    lexical: list[list[Hit]],
    *,
    k: float = 60.0,
    weights: Mapping[str, float] | None = None,
    method: str = DEFAULT,
    scripts: Sequence[frozenset[str]] = (),
) -> list[Hit]:
    """Fusion per query by the named method, then each chunk's best fused score across queries.

    ``scripts`` holds, per phrasing, the languages whose script it uses (``written_in``: ``ja``,
    ``en`` or both). BM25 cannot match a phrasing with a chunk written in a language the phrasing
    has no word of, so for such a chunk its silence is no evidence: the chunk keeps the better of
    its fused score and the score dense retrieval alone gives it (on the same scale), and a
    Japanese question can rank an English note as its embedding does. A phrasing with words of
    both scripts (「BM25 の k1」) leaves fusion as it is: BM25 can match either side.
    Equal best scores (each phrasing's own first hit scores the top) are ordered by the sum over
    phrasings, so the chunk more phrasings agree on comes first, then by id: deterministic.
    Scores are the method's own; ``FusionMethod.scaled`` maps them to 0..1.
    """
    fusion = get(method)
    params = FusionParams(k=k, weights=weights)
    best: dict[str, Hit] = {}
    support: dict[str, float] = {}
    for qi in range(max(len(dense), len(lexical))):
        lists = {"dense": dense[qi] if qi < len(dense) else [], "bm25": lexical[qi] if qi < len(lexical) else []}
        by_id: dict[str, Hit] = {}
        ranks: dict[str, dict[str, int]] = {}
        raw: dict[str, dict[str, float]] = {}
        for name, hits in lists.items():
            for rank, h in enumerate(hits, start=1):
                by_id.setdefault(h.point_id, h)
                ranks.setdefault(h.point_id, {})[name] = rank
                raw.setdefault(h.point_id, {})[name] = h.score
        scored = {name: [(h.point_id, h.score) for h in hits] for name, hits in lists.items()}
        fused = dict(fusion.join(scored, params))
        asked = scripts[qi] if qi < len(scripts) else frozenset()
        if asked and lists["dense"] and lists["bm25"]:
            other = [h for h in lists["dense"] if h.payload.get("language") in CROSS_LINGUAL - asked]
            if other:
                alone = dict(fusion.join({"dense": scored["dense"]}, params))
                both, one = fusion.top_score(params, ["bm25", "dense"]), fusion.top_score(params, ["dense"])
                for h in other:
                    fused[h.point_id] = max(fused.get(h.point_id, 0.0), alone[h.point_id] * both / one)
        for pid, score in fused.items():
            support[pid] = support.get(pid, 0.0) + score
            prev = best.get(pid)
            if prev is None or score > prev.score:
                best[pid] = Hit(pid, score, by_id[pid].payload, ranks[pid], raw[pid])
    return sorted(best.values(), key=lambda h: (-h.score, -support[h.point_id], h.point_id))
