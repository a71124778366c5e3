"""Ranked candidates shaped into the results users see: the ranking policy (freshness, the asker's
verdicts, an age limit; ``components/retrieval/policy.py``), top k after an offset, calibrated
scores, the minimum score, grouping by document, why nothing was found, and the debug details.

The last step of retrieval, whichever order stands (the cross-encoder's in ``rerank_results``,
the fused one in ``rerank_skipped``). Each job is a function of its inputs that returns new
values; ``shape_results`` runs them in order and returns the node's update.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from components.factory import Components
from components.heuristics.relevance import along_ranking, coverages, relevance
from components.resilience.errors import RAGError
from components.retrieval.hits import HitRecord
from components.retrieval.policy import Verdict, by_feedback, feedback_weights, freshen, too_old
from components.retrieval.results import explain_empty, group_by_document, of_first_documents
from components.text.messages import NOTHING_RELEVANT, OLDER_KEPT, OLDER_LEFT_OUT, pick
from graph.context import Context
from graph.retrieval_state import RetrievalState
from graph.state import language_of
from nodes.rag.common import hit_to_result, run_filters
from nodes.rag.rails import raw_words, screen_candidates

log = logging.getLogger(__name__)


def shape_results(
    c: Components,
    state: RetrievalState,
    ctx: Context,
    candidates: list[HitRecord],
    *,
    timings: Mapping[str, float],
    rerank: str = "",
    verdicts: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """The update that ends a retrieval: results, their count, notes for the user, timings, debug."""
    top_k = state["top_k"]
    searching = state.get("mode") == "search"
    offset = int(state.get("offset") or 0) if searching else 0
    notes: list[str] = []
    question = state.get("question") or ""
    phrasings = [raw_words(state, q) for q in [question, *(state.get("queries") or [])]]

    def own_relevance(hits: Sequence[HitRecord]) -> list[float]:
        rows = [hit_to_result(0, h["payload"], h["score"], retriever_scores=h.get("scores") or {}) for h in hits]
        return relevance_of(c, state["collection"], phrasings, rows)[1]

    candidates, adjusted = freshen(
        candidates,
        boost=ctx.freshness_boost,
        half_life_days=ctx.freshness_half_life_days,
        today=date.today(),
        relevance=own_relevance if question else None,
    )
    if not searching and verdicts:
        candidates, moved = by_feedback(candidates, verdicts, boost=ctx.feedback_boost)
        adjusted += moved
    if not searching and ctx.max_age_days > 0:
        candidates, aged = age_limit(candidates, ctx)
        notes += aged
    by_document = bool(state.get("group_by_document"))
    if not searching:  # Q&A: chunks carrying instructions never reach a model
        candidates, withheld = screen_candidates(candidates, enough=None if by_document else top_k + offset)
        notes += withheld
    shown = head(candidates, top_k + offset, by_document=by_document)
    results = [
        hit_to_result(
            i + 1, h["payload"], h["score"], ranks=h.get("ranks") or {}, retriever_scores=h.get("scores") or {}
        )
        for i, h in enumerate(shown)
    ]
    if not by_document:  # a page: ranks go on from offset + 1
        results = results[offset:]
    spent = dict(timings)
    if question and results:
        t0 = time.perf_counter()
        results = calibrated(c, state["collection"], phrasings, results)
        spent["relevance"] = (time.perf_counter() - t0) * 1000
        if searching:
            results, below = above_minimum(results, ctx.min_score, language_of(state))
            notes += below
    if not results and not candidates and question:
        notes.append(why_empty(c, state, ctx))
    embeddings: dict[str, Any] = {}
    if searching and state.get("include_embeddings"):
        results, embeddings = with_embeddings(c, state, results, shown)
    if by_document:
        results = group_by_document(results)[offset : offset + top_k]
    out: dict[str, Any] = {
        "results": results,
        "total": len(results),
        "notes": notes,
        "timings_ms": spent,
        **embeddings,
    }
    if state.get("debug"):
        out["debug_info"] = debug_details(state, rerank)
        if adjusted:  # what the ranking policy moved (freshness, feedback), by chunk
            out["debug_info"]["ranking_policy"] = [vars(a) for a in adjusted[:20]]
    return out


def askers_verdicts(c: Components, state: RetrievalState, ctx: Context) -> dict[str, float]:
    """The asker's own verdicts on earlier answers from this collection, as weights per document
    (Q&A with ``feedback_boost`` only); none when no feedback was ever stored here (the database is
    not created to find that out). It reads a database: call it off the event loop."""
    if state.get("mode") == "search" or ctx.feedback_boost <= 0:
        return {}
    if not c.may_hold_feedback():
        return {}
    try:
        records = c.feedback.verdicts_of(user_id=ctx.user_id, tenant=ctx.tenant, collection=state["collection"])
    except RAGError as e:  # feedback unreadable: rank without it, and say so in the log
        log.warning("ranking without feedback: %s", e)
        return {}
    verdicts = [
        Verdict(
            tuple(str(s.get("doc_id")) for s in r.sources if s.get("doc_id")),
            r.verdict == "good",
            r.reason,
            date.fromisoformat(r.created_at[:10]),
        )
        for r in records
    ]
    return feedback_weights(verdicts, today=date.today(), half_life_days=ctx.feedback_half_life_days)


def age_limit(candidates: list[HitRecord], ctx: Context) -> tuple[list[HitRecord], list[str]]:
    """Q&A with ``max_age_days``: older documents' chunks left out (or kept, with ``max_age_keeps``),
    and the warning that says which."""
    old = too_old(candidates, max_age_days=ctx.max_age_days, today=date.today())
    if not old:
        return candidates, []
    titles = ", ".join(dict.fromkeys(str(candidates[i]["payload"].get("title") or "a document") for i in old))
    if ctx.max_age_keeps:
        return candidates, [OLDER_KEPT.format(days=ctx.max_age_days, titles=titles)]
    gone = set(old)
    kept = [h for i, h in enumerate(candidates) if i not in gone]
    return kept, [OLDER_LEFT_OUT.format(count=len(old), days=ctx.max_age_days, titles=titles)]


def with_embeddings(
    c: Components, state: RetrievalState, results: list[dict[str, Any]], shown: Sequence[HitRecord]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Each result with its stored dense vector (read back by point id), and the question's vector."""
    point_of = {h["payload"].get("chunk_id"): h["point_id"] for h in shown}
    ids = [point_of[r["chunk_id"]] for r in results if r.get("chunk_id") in point_of]
    stored = c.index(state["collection"]).vectors(ids) if ids else {}
    out = []
    for r in results:
        vector = stored.get(str(point_of.get(r.get("chunk_id"))))
        out.append({**r, "embedding": [round(float(x), 6) for x in vector]} if vector is not None else r)
    question = state.get("question") or ""
    query = c.embedder.encode_queries([raw_words(state, question)])[0] if question else None
    return out, {"query_embedding": [round(float(x), 6) for x in query] if query is not None else None}


def head(candidates: list[HitRecord], top_k: int, *, by_document: bool) -> list[HitRecord]:
    """The candidates a response shows: the top k chunks, or with grouping every candidate chunk of
    the first k documents."""
    if not by_document:
        return candidates[:top_k]
    return of_first_documents(candidates, top_k, lambda h: h["payload"].get("doc_id"))


def calibrated(
    c: Components, collection: str, phrasings: list[str], results: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The results with calibrated scores (components/heuristics/relevance.py): the ranker's score
    moves to ``retriever_scores`` as ``ranker``, beside the result's own p(relevant) as ``relevance``
    and the share of the question's terms it holds as ``coverage`` (with ``dense``, the cosine:
    what the relevance model read, and what ``evals.calibrate_nonllm`` fits it on)."""
    covered, own = relevance_of(c, collection, phrasings, results)
    return [
        {
            **r,
            "score": round(s, 6),
            "retriever_scores": {
                **r["retriever_scores"],
                "ranker": r["score"],
                "coverage": round(cov, 6),
                "relevance": round(p, 6),
            },
        }
        for r, p, s, cov in zip(results, own, along_ranking(own), covered, strict=True)
    ]


def relevance_of(
    c: Components, collection: str, phrasings: list[str], rows: Sequence[Mapping[str, Any]]
) -> tuple[list[float], list[float]]:
    """Each ``hit_to_result``-shaped row's coverage of the question's terms and its own p(relevant),
    the question's terms weighed by the collection's idf."""
    try:
        idf: Mapping[str, float] | None = c.corpus(collection).idf
    except Exception as e:  # BM25 unreadable: every term weighs the same, scores stay 0..1
        log.warning("scoring relevance without term weights: %s", e)
        idf = None
    covered = coverages(phrasings, rows, tokenize=c.tokenizer, idf=idf)
    own = relevance(phrasings, rows, tokenize=c.tokenizer, idf=idf, calibration=c.calibration, covered=covered)
    return covered, own


def above_minimum(
    results: list[dict[str, Any]], minimum: float, language: str
) -> tuple[list[dict[str, Any]], list[str]]:
    """Search results scoring at least ``minimum``; when none does, a note with the best score."""
    kept = [r for r in results if r["score"] >= minimum]
    if kept:
        return kept, []
    return kept, [pick(NOTHING_RELEVANT, language).format(best=results[0]["score"], minimum=minimum)]


def why_empty(c: Components, state: RetrievalState, ctx: Context) -> str:
    """Why nothing was found: the filter condition that leaves nothing, when one does."""
    filters = run_filters(c, state, ctx)
    try:
        return "No results: " + explain_empty(c.corpus(state["collection"]), filters) + "."
    except Exception as e:  # explaining is a courtesy; never let it fail the search
        log.warning("could not explain the empty result: %s", e)
        return "No results."


def debug_details(state: RetrievalState, rerank: str) -> dict[str, Any]:
    """With ``debug``: the run's trace (collection, Qdrant filter, ...), the retrievers that answered,
    and why reranking was skipped."""
    details = {**(state.get("trace") or {}), "retrievers": sorted(set(state.get("retrievers") or []))}
    if rerank:
        details["rerank"] = rerank
    return details
