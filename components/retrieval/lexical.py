"""Lexical retrieval: BM25 in the store (``components/stores/lexical.py``), filters applied inside the engine."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from components.retrieval.filters import SearchFilters
from components.retrieval.hits import Hit
from components.stores.lexical import LexicalIndex


def engine_search(
    lexical: LexicalIndex,
    queries: list[str],
    filters: SearchFilters,
    *,
    limit: int,
    fields: Sequence[str] | None = None,
    scale: Mapping[str, float] | None = None,
) -> tuple[list[list[Hit]], dict[str, float]]:
    """Per query, the top chunks by the store's BM25 among those the filter admits; ``fields``
    (e.g. ``LISTED``) names the payload keys to return, all of them by default; ``scale``: the
    collection's ``Corpus.ranking`` (the engine's own IDF without it)."""
    t0 = time.perf_counter()
    qf = filters.to_qdrant()
    selector: bool | list[str] = list(fields) if fields else True
    out = []
    for q in queries:
        points = lexical.search(lexical.tokenizer(q), limit=limit, query_filter=qf, with_payload=selector, scale=scale)
        out.append([Hit(str(p.id), float(p.score), dict(p.payload or {})) for p in points])
    return out, {"bm25": (time.perf_counter() - t0) * 1000}
