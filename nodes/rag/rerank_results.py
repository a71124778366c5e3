"""Cross-encoder rerank of the fused candidates, then the final ranked results.

Without a configured cross-encoder (none ships on PyPI) or when it fails or times out, the
fused order stands and the response says reranking was skipped.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.heuristics.relevance import along_ranking, coverages, relevance
from components.retrieval.hits import HitRecord
from components.retrieval.results import explain_empty, group_by_document, of_first_documents
from components.text.messages import NOTHING_RELEVANT, pick
from graph.context import Context
from graph.retrieval_state import RetrievalState
from graph.state import language_of
from nodes.rag.common import hit_to_result, run_filters
from nodes.rag.failures import Fallback
from nodes.rag.rails import raw_words, screen_candidates
from nodes.types import RetrievalNode as Node

log = logging.getLogger(__name__)
NO_RERANKER = "skipped: no cross-encoder is configured (set RERANKER_MODEL to a local model folder)"
"""The default (none ships on PyPI): said in --debug and by `rag status`, not as a warning on every search."""


def make(c: Components) -> Node:
    async def rerank_results(state: RetrievalState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        candidates = list(state.get("candidates") or [])
        notes: list[str] = []
        timings: dict[str, float] = {}
        reranker = c.reranker if ctx.rerank else None
        if reranker is not None and candidates and state.get("question"):
            t0 = time.perf_counter()
            async with c.breakers.guard("reranker"):  # open: CircuitOpen, and the handler keeps the fused order
                scores = await asyncio.to_thread(
                    reranker.rerank,
                    raw_words(state, state.get("question") or ""),
                    [h["payload"].get("text") or "" for h in candidates],
                )
            for h, s in zip(candidates, scores, strict=True):
                h["scores"] = {**h["scores"], "rerank": s}
                h["score"] = s
            candidates.sort(key=lambda h: (-h["score"], h["point_id"]))
            timings["rerank"] = (time.perf_counter() - t0) * 1000
        skipped = NO_RERANKER if ctx.rerank and reranker is None else ""
        return finish(c, state, ctx, candidates, notes, timings, rerank=skipped)

    return rerank_results


def finish(
    c: Components,
    state: RetrievalState,
    ctx: Context,
    candidates: list[HitRecord],
    notes: list[str],
    timings: dict[str, float],
    *,
    rerank: str = "",
) -> dict[str, Any]:
    """Top-k results with calibrated scores, the minimum score, grouping, empty-result reasons, debug."""
    top_k = state["top_k"]
    if state.get("mode") != "search":  # Q&A: chunks carrying instructions never reach a model
        candidates, withheld = screen_candidates(candidates)
        notes.extend(withheld)
    results = [
        hit_to_result(
            i + 1, h["payload"], h["score"], ranks=h.get("ranks") or {}, retriever_scores=h.get("scores") or {}
        )
        for i, h in enumerate(_head(candidates, top_k, by_document=bool(state.get("group_by_document"))))
    ]
    question = state.get("question") or ""
    if question and results:
        t0 = time.perf_counter()
        phrasings = [raw_words(state, q) for q in [question, *(state.get("queries") or [])]]
        _calibrate(c, state["collection"], phrasings, results)
        timings["relevance"] = (time.perf_counter() - t0) * 1000
        if state.get("mode") == "search":
            kept = [r for r in results if r["score"] >= ctx.min_score]
            if not kept:
                best = results[0]["score"]
                notes.append(pick(NOTHING_RELEVANT, language_of(state)).format(best=best, minimum=ctx.min_score))
            results = kept
    if not results and candidates == [] and state.get("question"):
        filters = run_filters(c, state, ctx)
        try:
            notes.append("No results: " + explain_empty(c.corpus(state["collection"]), filters) + ".")
        except Exception as e:  # explaining is a courtesy; never let it fail the search
            log.warning("could not explain the empty result: %s", e)
            notes.append("No results.")
    if state.get("group_by_document"):
        results = group_by_document(results)[:top_k]
    out: dict[str, Any] = {
        "results": results,
        "total": len(results),
        "notes": notes,  # finish_run turns the run's notes into its warnings
        "timings_ms": timings,
    }
    if state.get("debug"):
        out["debug_info"] = {**(state.get("trace") or {}), "retrievers": sorted(set(state.get("retrievers") or []))}
        if rerank:
            out["debug_info"]["rerank"] = rerank
    return out


def _head(candidates: list[HitRecord], top_k: int, *, by_document: bool) -> list[HitRecord]:
    """The candidates a response shows: the top k chunks, or with grouping every candidate chunk of
    the first k documents."""
    if not by_document:
        return candidates[:top_k]
    return of_first_documents(candidates, top_k, lambda h: h["payload"].get("doc_id"))


def _calibrate(c: Components, collection: str, phrasings: list[str], results: list[dict[str, Any]]) -> None:
    """Give each result its calibrated score (components/heuristics/relevance.py), in place; the
    ranker's score stays in ``retriever_scores`` as ``ranker``, the result's own p(relevant) as
    ``relevance`` and the share of the question's terms it holds as ``coverage`` (with ``dense``,
    the cosine: what the relevance model read, and what ``evals.calibrate_nonllm`` fits it on)."""
    try:
        idf: Mapping[str, float] | None = c.corpus(collection).idf
    except Exception as e:  # BM25 unreadable: every term weighs the same, scores stay 0..1
        log.warning("scoring relevance without term weights: %s", e)
        idf = None
    covered = coverages(phrasings, results, tokenize=c.tokenizer, idf=idf)
    own = relevance(phrasings, results, tokenize=c.tokenizer, idf=idf, calibration=c.calibration, covered=covered)
    for r, p, s, cov in zip(results, own, along_ranking(own), covered, strict=True):
        evidence = {"ranker": r["score"], "coverage": round(cov, 6), "relevance": round(p, 6)}
        r["retriever_scores"] = {**r["retriever_scores"], **evidence}
        r["score"] = round(s, 6)


rerank_failed = Fallback(
    breaker="reranker",
    goto="rerank_skipped",
    update=lambda why: {"notes": [f"Reranking skipped: the cross-encoder failed ({why}); the fused order stands."]},
)
"""Cross-encoder broken or slow: ``rerank_skipped`` finishes with the fused order."""


def make_skipped(c: Components) -> Node:
    async def rerank_skipped(state: RetrievalState, runtime: Runtime[Context]) -> dict[str, Any]:
        """The fused order, finished as the reranker would have (after it failed)."""
        return finish(c, state, runtime.context or Context(), list(state.get("candidates") or []), [], {})

    return rerank_skipped
