"""BM25 over the same chunks (filters applied the same way); on failure, dense results alone."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langgraph.errors import NodeError
from langgraph.runtime import Runtime
from langgraph.types import Command

from components.factory import Components
from components.retrieval.filters import SearchFilters
from components.retrieval.lexical import bm25_search
from graph.context import Context
from graph.state import RAGState
from nodes.rag.common import log_error
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def retrieve_bm25(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        if state.get("similar_to"):  # "more like this" is a vector question
            return {"bm25_hits": []}
        filters = SearchFilters.parse(state.get("search_filters"))
        limit = max(ctx.candidates, int(state.get("top_k") or ctx.top_k))
        bm25 = await asyncio.to_thread(c.bm25, ctx.collection or None)
        hits, timings = await asyncio.to_thread(
            bm25_search, bm25, c.tokenizer, list(state.get("queries") or []), filters, limit=limit
        )
        out: dict[str, Any] = {
            "bm25_hits": [[h.to_dict() for h in q] for q in hits],
            "retrievers": ["bm25"],
            "timings_ms": timings,
        }
        if bm25.stale:
            out["notes"] = ["The vector store did not answer; BM25 used its cached index, which may be out of date."]
        return out

    return retrieve_bm25


def bm25_failed(state: RAGState, error: NodeError) -> Command[Any]:
    log_error("bm25", "retrieve_bm25", state, error.error)
    return Command(
        goto="fuse_results",
        update={
            "bm25_hits": [],
            "notes": [f"BM25 retrieval failed ({type(error.error).__name__}); results come from dense retrieval only."],
        },
    )
