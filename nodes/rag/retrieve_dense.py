"""Dense retrieval in Qdrant; on failure or timeout the run goes on with BM25 alone."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from langgraph.errors import NodeError
from langgraph.runtime import Runtime
from langgraph.types import Command
from qdrant_client import models

from components.factory import Components
from components.resilience.errors import CircuitOpen, QueryError
from components.retrieval.filters import SearchFilters
from components.retrieval.hybrid import Hit, dense_search, similar_vector
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
            hits, timings = await asyncio.to_thread(_similar, c, similar_to, filters, limit, collection)
        else:
            hits, timings = await asyncio.to_thread(
                dense_search,
                c,
                list(state.get("dense_queries") or state.get("queries") or []),
                filters,
                limit=limit,
                collection=collection,
            )
        breaker.success()
        return {"dense_hits": [[h.to_dict() for h in q] for q in hits], "retrievers": ["dense"], "timings_ms": timings}

    return retrieve_dense


def _similar(c: Components, doc_id: str, filters: SearchFilters, limit: int, collection: str | None) -> Any:
    """Chunks closest to the mean vector of ``doc_id``'s chunks, the document itself excluded."""
    t0 = time.perf_counter()
    vec = similar_vector(c, doc_id, collection)
    if vec is None:
        raise QueryError(f"Document {doc_id!r} is not in the index; `rag search` shows document ids.")
    qf = filters.to_qdrant() or models.Filter()
    qf.must_not = [models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id))]
    points = c.index(collection).search(vec, limit=limit, query_filter=qf)
    hits = [Hit(str(p.id), float(p.score), dict(p.payload or {})) for p in points]
    return [hits], {"dense": (time.perf_counter() - t0) * 1000}


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
