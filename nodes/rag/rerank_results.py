"""Cross-encoder rerank of the fused candidates, then the final ranked results (``nodes/rag/shaping.py``).

Without a configured cross-encoder (none ships on PyPI) or when it fails or times out, the
fused order stands and the response says reranking was skipped.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.retrieval.hits import HitRecord
from graph.context import Context
from graph.retrieval_state import RetrievalState
from nodes.rag.failures import Fallback
from nodes.rag.rails import raw_words
from nodes.rag.shaping import askers_verdicts, shape_results
from nodes.types import RetrievalNode as Node

NO_RERANKER = "skipped: no cross-encoder is configured (set RERANKER_MODEL to a local model folder)"
"""The default (none ships on PyPI): said in --debug and by `rag status`, not as a warning on every search."""


def make(c: Components) -> Node:
    async def rerank_results(state: RetrievalState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        candidates = list(state.get("candidates") or [])
        timings: dict[str, float] = {}
        reranker = c.reranker if ctx.rerank else None
        question = state.get("question") or ""
        if reranker is not None and candidates and question:
            t0 = time.perf_counter()
            async with c.breakers.guard("reranker"):  # open: CircuitOpen, and the handler keeps the fused order
                scores = await asyncio.to_thread(
                    reranker.rerank, raw_words(state, question), [h["payload"].get("text") or "" for h in candidates]
                )
            candidates = reranked(candidates, scores)
            timings["rerank"] = (time.perf_counter() - t0) * 1000
        skipped = NO_RERANKER if ctx.rerank and reranker is None else ""
        # shaping reads the store (feedback, vectors asked for) and scores: off the event loop
        verdicts = await asyncio.to_thread(askers_verdicts, c, state, ctx)
        return await asyncio.to_thread(
            lambda: shape_results(c, state, ctx, candidates, timings=timings, rerank=skipped, verdicts=verdicts)
        )

    return rerank_results


def reranked(candidates: Sequence[HitRecord], scores: Sequence[float]) -> list[HitRecord]:
    """The candidates in the cross-encoder's order, each with its score as ``score`` and among its
    ``scores`` (new records: the state's stay as the fusion wrote them)."""
    rescored = []
    for h, s in zip(candidates, scores, strict=True):
        r = h.copy()
        r["scores"] = {**h["scores"], "rerank": s}
        r["score"] = s
        rescored.append(r)
    return sorted(rescored, key=lambda h: (-h["score"], h["point_id"]))


rerank_failed = Fallback(
    breaker="reranker",
    goto="rerank_skipped",
    update=lambda why: {"notes": [f"Reranking skipped: the cross-encoder failed ({why}); the fused order stands."]},
)
"""Cross-encoder broken or slow: ``rerank_skipped`` finishes with the fused order."""


def make_skipped(c: Components) -> Node:
    async def rerank_skipped(state: RetrievalState, runtime: Runtime[Context]) -> dict[str, Any]:
        """The fused order, finished as the reranker would have (after it failed)."""
        ctx = runtime.context or Context()
        verdicts = await asyncio.to_thread(askers_verdicts, c, state, ctx)
        candidates = list(state.get("candidates") or [])
        return await asyncio.to_thread(lambda: shape_results(c, state, ctx, candidates, timings={}, verdicts=verdicts))

    return rerank_skipped
