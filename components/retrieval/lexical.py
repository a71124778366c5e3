"""Lexical retrieval: BM25 in the store when it keeps the weights, else the in-memory index.

In the store (``components/stores/lexical.py``) filters apply inside the engine; the in-memory
``BM25Index`` applies the same filters as a predicate over its payload copies.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from components.retrieval.filters import SearchFilters
from components.retrieval.hits import Hit
from components.stores.bm25 import BM25Index
from components.stores.lexical import LexicalIndex


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


def engine_search(
    lexical: LexicalIndex,
    queries: list[str],
    filters: SearchFilters,
    *,
    limit: int,
    fields: Sequence[str] | None = None,
) -> tuple[list[list[Hit]], dict[str, float]]:
    """Per query, the top chunks by the store's BM25 among those the filter admits; ``fields``
    (e.g. ``LISTED``) names the payload keys to return, all of them by default."""
    t0 = time.perf_counter()
    qf = filters.to_qdrant()
    selector: bool | list[str] = list(fields) if fields else True
    out = []
    for q in queries:
        points = lexical.search(lexical.tokenizer(q), limit=limit, query_filter=qf, with_payload=selector)
        out.append([Hit(str(p.id), float(p.score), dict(p.payload or {})) for p in points])
    return out, {"bm25": (time.perf_counter() - t0) * 1000}
