"""Shaping ranked chunks for people: grouping by document, and saying why nothing was found."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from components.retrieval.filters import Condition, SearchFilters
from components.stores.corpus import Corpus, Selects

T = TypeVar("T")


def of_first_documents(hits: Sequence[T], n: int, document: Callable[[T], Any]) -> list[T]:
    """Every hit of the first ``n`` documents in rank order (``-k 10 --group-by-document`` means
    ten documents, each with its matching chunks), the rest left out."""
    docs: set[Any] = set()
    out = []
    for h in hits:
        doc = document(h)
        if doc not in docs and len(docs) >= n:
            continue
        docs.add(doc)
        out.append(h)
    return out


def group_by_document(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Results grouped per document, in the order of each document's best-ranked chunk (the
    ranker's order: calibrated scores can tie), the matching chunks in rank order."""
    groups: dict[str, dict[str, Any]] = {}
    for r in hits:
        g = groups.setdefault(
            r["doc_id"],
            {
                "doc_id": r["doc_id"],
                "score": r["score"],
                "title": r["title"],
                "source": r["source"],
                # the document's own metadata (authors, year, journal, DOI, collections, item type),
                # at document level as a paper interface expects it, not only inside each chunk
                "metadata": r.get("metadata") or {},
                "created": r.get("created"),
                **({"collection": r["collection"]} if "collection" in r else {}),
                "chunks": [],
            },
        )
        g["score"] = max(g["score"], r["score"])
        g["chunks"].append(r)
    out = list(groups.values())  # dicts keep insertion order: the first chunk seen is the best ranked
    for i, g in enumerate(out, start=1):
        g["rank"] = i
    return out


def did_you_mean(cond: Condition, corpus: Corpus, scope: Sequence[Selects] = ()) -> str:
    """ "; did you mean 'rag'?" for a value filter whose values are close to ones the caller's
    chunks hold (``scope``: its access condition), else the values they do hold when there are few;
    "" when neither."""
    if not cond.key or not cond.wanted:
        return ""
    held = list(corpus.values(cond.key, scope))
    if not held:
        return ""
    folded = {h.casefold(): h for h in held}
    close: list[str] = []
    for w in cond.wanted:
        close += [folded[m] for m in difflib.get_close_matches(str(w).casefold(), list(folded), n=3, cutoff=0.75)]
    close = list(dict.fromkeys(close))
    if close:
        return "; did you mean " + " or ".join(repr(c) for c in close) + "?"
    if len(held) <= 12:
        return f"; the index holds {', '.join(repr(h) for h in sorted(held))}"
    return ""


def explain_empty(corpus: Corpus, filters: SearchFilters) -> str:
    """Name the filter condition that leaves nothing (or say the combination does).

    Every condition is tested together with the filters' access condition, and suggestions come
    from the chunks it admits: to a caller, a chunk outside its groups does not exist, so a filter
    that matches only such chunks is explained exactly as one that matches nothing (else the
    explanation would tell, one guess at a time, what restricted chunks hold)."""
    scope = filters.access_only().conditions()
    if corpus.size == 0 or (scope and not corpus.admits_any(scope)):
        return "the collection is empty; run `rag ingest PATH`"
    conds = filters.without_access().conditions()
    if not conds:
        return "no chunk matched the query terms or vectors"
    for cond in conds:
        if not corpus.admits_any([cond, *scope]):
            return f"no chunk matches the filter {cond.label}" + did_you_mean(cond, corpus, scope)
    return "each filter matches something, but together they match nothing: " + " AND ".join(
        cond.label for cond in conds
    )
