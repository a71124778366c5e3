"""Dense retrieval in Qdrant; on failure or timeout the run goes on with BM25 alone."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from langgraph.errors import NodeError
from langgraph.runtime import Runtime
from langgraph.types import Command

from components.factory import Components
from components.resilience.errors import CircuitOpen, QueryError
from components.retrieval.dense import dense_search, similar_search
from components.retrieval.filters import SearchFilters
from graph.context import Context
from graph.state import RAGState
from nodes.rag.common import log_error
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def retrieve_dense(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        filters = SearchFilters.parse(state.get("search_filters"))
        limit = max(ctx.candidates, int(state.get("top_k") or ctx.top_k))
        collection = ctx.collection or None
        similar_to = state.get("similar_to")
        breaker = c.breakers.get("vector_store")
        breaker.acquire()  # open: fail fast (CircuitOpen) and let the handler go on with BM25
        if similar_to:
            found = await asyncio.to_thread(similar_search, c.index(collection), similar_to, filters, limit=limit)
            if found is None:
                raise QueryError(f"Document {similar_to!r} is not in the index; `rag search` shows document ids.")
            hits, timings = found
        else:
            hits, timings = await asyncio.to_thread(
                dense_search,
                c.index(collection),
                c.embedder,
                list(state.get("dense_queries") or state.get("queries") or []),
                filters,
                limit=limit,
                payloads=c.payload_mirror(collection),
            )
        breaker.success()
        return {"dense_hits": [[h.to_dict() for h in q] for q in hits], "retrievers": ["dense"], "timings_ms": timings}

    return retrieve_dense


def make_failed(c: Components) -> Callable[[RAGState, NodeError], Command[Any]]:
    """The error handler of retrieve_dense: it also counts timeouts against the store's breaker."""

    def dense_failed(state: RAGState, error: NodeError) -> Command[Any]:
        """Vector store down or slow: continue with BM25 only, and say so."""
        breaker = c.breakers.get("vector_store")
        if isinstance(error.error, QueryError):
            breaker.release()
            raise error.error
        if not isinstance(error.error, CircuitOpen):
            breaker.failure(error.error)
        log_error("vector_store", "retrieve_dense", state, error.error)
        return fallback(error)

    return dense_failed


def fallback(error: NodeError) -> Command[Any]:
    return Command(
        goto="fuse_results",
        update={
            "dense_hits": [],
            "notes": [f"Dense retrieval was unavailable ({type(error.error).__name__}); results come from BM25 only."],
        },
    )
