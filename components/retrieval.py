"""Hybrid retrieval: dense vectors in Qdrant and BM25 over the same chunks, fused with RRF.

This is the retrieval core that the search nodes and the benchmarks share. Results carry each
retriever's rank and score so that debug output can show why a chunk ranks where it does.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from components.factory import Components
from components.fusion import rrf

log = logging.getLogger(__name__)


@dataclass
class Hit:
    point_id: str
    payload: dict[str, Any]
    score: float
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)


@dataclass
class RetrievalResult:
    hits: list[Hit]
    timings_ms: dict[str, float]
    warnings: list[str] = field(default_factory=list)


class HybridRetriever:
    """Dense + BM25 + RRF over one collection."""

    def __init__(self, components: Components, *, collection: str | None = None) -> None:
        self.c = components
        self.collection = collection

    def retrieve(
        self,
        query: str,
        *,
        top_k: int = 5,
        candidates: int = 50,
        rrf_k: float = 60.0,
        weights: dict[str, float] | None = None,
    ) -> RetrievalResult:
        index = self.c.index(self.collection)
        meta = index.metadata()
        index.check_model(meta, embedding_model=self.c.embedder.model_id)
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        qvec = self.c.embedder.encode_queries([query])[0]
        timings["embed"] = (time.perf_counter() - t0) * 1000
        t1 = time.perf_counter()
        dense = index.search(qvec, limit=candidates)
        timings["dense"] = (time.perf_counter() - t1) * 1000
        t2 = time.perf_counter()
        bm25 = self.c.bm25(self.collection)
        lexical = bm25.search(self.c.tokenizer(query), limit=candidates)
        timings["bm25"] = (time.perf_counter() - t2) * 1000
        t3 = time.perf_counter()
        rankings = {"dense": [str(p.id) for p in dense], "bm25": [h.point_id for h in lexical]}
        fused = rrf(rankings, k=rrf_k, weights=weights)[:top_k]
        payloads = {str(p.id): dict(p.payload or {}) for p in dense}
        missing = [pid for pid, _ in fused if pid not in payloads]
        if missing:
            for rec in index.client.retrieve(index.collection, ids=missing, with_payload=True):
                payloads[str(rec.id)] = dict(rec.payload or {})
        dense_scores = {str(p.id): float(p.score) for p in dense}
        bm25_scores = {h.point_id: h.score for h in lexical}
        hits = []
        for pid, score in fused:
            ranks = {name: ids.index(pid) + 1 for name, ids in rankings.items() if pid in ids}
            scores = {
                k: v for k, v in (("dense", dense_scores.get(pid)), ("bm25", bm25_scores.get(pid))) if v is not None
            }
            hits.append(Hit(pid, payloads.get(pid, {}), score, ranks, scores))
        timings["fusion"] = (time.perf_counter() - t3) * 1000
        timings["total"] = (time.perf_counter() - t0) * 1000
        return RetrievalResult(hits=hits, timings_ms=timings)
