"""Lexical retrieval: BM25 over the stored chunks, the same metadata filters applied in Python."""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from components.retrieval.filters import SearchFilters
from components.retrieval.hits import Hit
from components.stores.bm25 import BM25Index


def bm25_search(
    bm25: BM25Index, tokenize: Callable[[str], list[str]], queries: list[str], filters: SearchFilters, *, limit: int
) -> tuple[list[list[Hit]], dict[str, float]]:
    """Per query, the top chunks by BM25 among those the filter admits (``bm25.stale``: an out-of-date index)."""
    t0 = time.perf_counter()
    allowed = None
    if not filters.is_empty():
        allowed = np.fromiter((filters.matches(p) for p in bm25.payloads), dtype=bool, count=bm25.size)
    out = []
    for q in queries:
        hits = bm25.search(tokenize(q), limit=limit, allowed=allowed)
        out.append([Hit(h.point_id, h.score, bm25.payloads[h.index]) for h in hits])
    return out, {"bm25": (time.perf_counter() - t0) * 1000}
