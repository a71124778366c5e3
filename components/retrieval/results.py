"""Shaping ranked chunks for people: grouping by document, and saying why nothing was found."""

from __future__ import annotations

from typing import Any

from components.retrieval.filters import SearchFilters
from components.stores.bm25 import BM25Index


def group_by_document(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Results grouped per document, in the order of each document's best-ranked chunk (the
    ranker's order: calibrated scores can tie), the matching chunks in rank order."""
    groups: dict[str, dict[str, Any]] = {}
    for r in hits:
        g = groups.setdefault(
            r["doc_id"],
            {"doc_id": r["doc_id"], "score": r["score"], "title": r["title"], "source": r["source"], "chunks": []},
        )
        g["score"] = max(g["score"], r["score"])
        g["chunks"].append(r)
    out = list(groups.values())  # dicts keep insertion order: the first chunk seen is the best ranked
    for i, g in enumerate(out, start=1):
        g["rank"] = i
    return out


def explain_empty(bm25: BM25Index, filters: SearchFilters) -> str:
    """Name the filter condition that leaves nothing (or say the combination does)."""
    if bm25.size == 0:
        return "the collection is empty; run `rag ingest PATH`"
    conds = filters.conditions()
    if not conds:
        return "no chunk matched the query terms or vectors"
    for cond in conds:
        if not any(cond.test(p) for p in bm25.payloads):
            return f"no chunk matches the filter {cond.label}"
    return "each filter matches something, but together they match nothing: " + " AND ".join(
        cond.label for cond in conds
    )
