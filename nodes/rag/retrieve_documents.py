"""Hybrid retrieval (dense + BM25, RRF) for the question."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from components.documents import detect_language
from components.errors import QueryError
from components.factory import Components
from components.retrieval import HybridRetriever
from graph.context import Context
from graph.state import RAGState
from nodes.rag.common import hit_to_result, question_of
from nodes.types import RAGNode as Node


def make(c: Components) -> Node:
    async def retrieve_documents(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = question_of(state)
        if not question:
            raise QueryError("The question is empty: pass a non-blank `question` (or a human message).")
        top_k = int(state.get("top_k") or ctx.top_k)
        retriever = HybridRetriever(c, collection=ctx.collection or None)
        res = await asyncio.to_thread(
            retriever.retrieve,
            question,
            top_k=top_k,
            candidates=max(ctx.candidates, top_k),
            rrf_k=ctx.rrf_k,
            weights={"dense": ctx.dense_weight, "bm25": ctx.bm25_weight},
        )
        # RRF scores are tiny and rank-only; scale so the best possible fused score is 1.0
        best = (ctx.dense_weight + ctx.bm25_weight) / (ctx.rrf_k + 1)
        results = [
            hit_to_result(i + 1, h.payload, min(1.0, h.score / best), ranks=h.ranks, retriever_scores=h.scores)
            for i, h in enumerate(res.hits)
        ]
        return {
            "question": question,
            "language": detect_language(question),
            "results": results,
            "timings_ms": res.timings_ms,
            "warnings": res.warnings,
            "route": "vector_search",
            "cache_hit": False,
        }

    return retrieve_documents
