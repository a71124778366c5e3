"""Hybrid retrieval stages: dense search in Qdrant, BM25, Reciprocal Rank Fusion.

The graph runs dense and BM25 as two nodes in parallel and fuses in a third; the benchmarks
and the batch CLI call the same functions directly. Every hit carries each retriever's rank
and raw score so debug output can show why a chunk ranks where it does.

Several phrasings of one query (multi-query search) are fused per phrasing and then merged
keeping each chunk's best fused score.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from components.factory import Components
from components.retrieval.filters import SearchFilters
from components.retrieval.fusion import convex, rrf

log = logging.getLogger(__name__)


@dataclass
class Hit:
    """One chunk found by one retriever (or fused)."""

    point_id: str
    score: float
    payload: dict[str, Any]
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "point_id": self.point_id,
            "score": self.score,
            "payload": self.payload,
            "ranks": self.ranks,
            "scores": self.scores,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Hit:
        return cls(
            d["point_id"],
            float(d["score"]),
            d.get("payload") or {},
            dict(d.get("ranks") or {}),
            dict(d.get("scores") or {}),
        )


def dense_search(
    c: Components, queries: list[str], filters: SearchFilters, *, limit: int, collection: str | None = None
) -> tuple[list[list[Hit]], dict[str, float]]:
    """Per query, the top chunks by cosine similarity inside Qdrant (filter applied there)."""
    index = c.index(collection)
    t0 = time.perf_counter()
    vectors = c.embedder.encode_queries(queries)
    t1 = time.perf_counter()
    qfilter = filters.to_qdrant()
    mirror = c.payload_mirror(collection)
    out = []
    for v in vectors:
        points = index.search(v, limit=limit, query_filter=qfilter, with_payload=mirror is None)
        if mirror is None:
            out.append([Hit(str(p.id), float(p.score), dict(p.payload or {})) for p in points])
            continue
        found = {str(p.id): mirror.payload_of(str(p.id)) for p in points}
        missing = [pid for pid, pl in found.items() if pl is None]
        if missing:  # cannot happen at the mirror's version; read them rather than trust that
            found.update(index.payloads(missing))
        out.append([Hit(str(p.id), float(p.score), dict(found.get(str(p.id)) or {})) for p in points])
    t2 = time.perf_counter()
    return out, {"query_embedding": (t1 - t0) * 1000, "dense": (t2 - t1) * 1000}


def bm25_search(
    c: Components, queries: list[str], filters: SearchFilters, *, limit: int, collection: str | None = None
) -> tuple[list[list[Hit]], dict[str, float], bool]:
    """Per query, the top chunks by BM25 among those the filter admits; third item: stale index."""
    t0 = time.perf_counter()
    bm = c.bm25(collection)
    allowed = None
    if not filters.is_empty():
        allowed = np.fromiter((filters.matches(p) for p in bm.payloads), dtype=bool, count=bm.size)
    out = []
    for q in queries:
        hits = bm.search(c.tokenizer(q), limit=limit, allowed=allowed)
        out.append([Hit(h.point_id, h.score, bm.payloads[h.index]) for h in hits])
    return out, {"bm25": (time.perf_counter() - t0) * 1000}, bm.stale


FUSION_METHODS = ("rrf", "convex")
#: measured better than RRF on SciFact and JSQuAD at every candidate depth (README, Measurements)
DEFAULT_FUSION = "convex"


def fuse(
    dense: list[list[Hit]],
    lexical: list[list[Hit]],
    *,
    k: float = 60.0,
    weights: dict[str, float] | None = None,
    method: str = DEFAULT_FUSION,
) -> list[Hit]:
    """Fusion per query (``rrf`` or ``convex``), then each chunk's best fused score across queries.

    Deterministic order. ``convex`` scores are already 0..1; RRF's are not (see ``max_rrf``).
    """
    if method not in FUSION_METHODS:
        raise ValueError(f"fusion must be one of {', '.join(FUSION_METHODS)}, not {method!r}")
    best: dict[str, Hit] = {}
    n = max(len(dense), len(lexical))
    for qi in range(n):
        lists = {"dense": dense[qi] if qi < len(dense) else [], "bm25": lexical[qi] if qi < len(lexical) else []}
        by_id: dict[str, Hit] = {}
        ranks: dict[str, dict[str, int]] = {}
        raw: dict[str, dict[str, float]] = {}
        for name, hits in lists.items():
            for rank, h in enumerate(hits, start=1):
                by_id.setdefault(h.point_id, h)
                ranks.setdefault(h.point_id, {})[name] = rank
                raw.setdefault(h.point_id, {})[name] = h.score
        if method == "convex":
            scored = {name: [(h.point_id, h.score) for h in hits] for name, hits in lists.items()}
            fused = convex(scored, weights=weights)
        else:
            fused = rrf({name: [h.point_id for h in hits] for name, hits in lists.items()}, k=k, weights=weights)
        for pid, score in fused:
            prev = best.get(pid)
            if prev is None or score > prev.score:
                best[pid] = Hit(pid, score, by_id[pid].payload, ranks[pid], raw[pid])
    return sorted(best.values(), key=lambda h: (-h.score, h.point_id))


def max_rrf(k: float, weights: dict[str, float], retrievers: list[str]) -> float:
    """The fused score of a chunk ranked first by every retriever that answered."""
    return sum(weights.get(r, 1.0) for r in retrievers) / (k + 1)


def group_by_document(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Results grouped per document: best score first, the matching chunks in rank order."""
    groups: dict[str, dict[str, Any]] = {}
    for r in hits:
        g = groups.setdefault(
            r["doc_id"],
            {"doc_id": r["doc_id"], "score": r["score"], "title": r["title"], "source": r["source"], "chunks": []},
        )
        g["score"] = max(g["score"], r["score"])
        g["chunks"].append(r)
    out = sorted(groups.values(), key=lambda g: (-g["score"], str(g["doc_id"])))
    for i, g in enumerate(out, start=1):
        g["rank"] = i
    return out


def explain_empty(c: Components, filters: SearchFilters, collection: str | None = None) -> str:
    """Name the filter condition that leaves nothing (or say the combination does)."""
    bm = c.bm25(collection)
    if bm.size == 0:
        return "the collection is empty; run `rag ingest PATH`"
    conds = filters.conditions()
    if not conds:
        return "no chunk matched the query terms or vectors"
    for cond in conds:
        if not any(cond.test(p) for p in bm.payloads):
            return f"no chunk matches the filter {cond.label}"
    return "each filter matches something, but together they match nothing: " + " AND ".join(
        cond.label for cond in conds
    )


def similar_vector(c: Components, doc_id: str, collection: str | None = None) -> Any:
    """The mean of a document's chunk vectors (to find documents like it)."""
    import numpy as np
    from qdrant_client import models

    index = c.index(collection)
    points, _ = index.client.scroll(
        index.collection,
        limit=10_000,
        with_vectors=True,
        with_payload=False,
        scroll_filter=models.Filter(must=[models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id))]),
    )
    if not points:
        return None
    vecs = np.asarray([p.vector["dense"] if isinstance(p.vector, dict) else p.vector for p in points], dtype=np.float32)
    v = vecs.mean(axis=0)
    return v / (np.linalg.norm(v) or 1.0)
