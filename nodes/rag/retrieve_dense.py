"""Dense retrieval in Qdrant; on failure or timeout the run goes on with BM25 alone."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import QueryError
from components.retrieval.dense import dense_search, similar_search
from components.retrieval.hits import LISTED
from graph.context import Context
from graph.retrieval_state import RetrievalState
from nodes.rag.common import depth, run_filters
from nodes.rag.failures import Fallback
from nodes.rag.rails import for_retrieval
from nodes.types import RetrievalNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def retrieve_dense(state: RetrievalState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        if "dense" not in ctx.retrievers and not state.get("similar_to"):
            return {"dense_hits": []}
        filters = await asyncio.to_thread(run_filters, c, state, ctx)
        limit = max(ctx.candidates, depth(state))
        collection = state["collection"]
        similar_to = state.get("similar_to")
        async with c.breakers.guard("vector_store"):  # open: CircuitOpen, and the handler goes on with BM25
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
                    for_retrieval(state, state.get("dense_queries") or state.get("queries") or []),
                    filters,
                    limit=limit,
                    fields=LISTED,
                )
        return {"dense_hits": [[h.to_dict() for h in q] for q in hits], "retrievers": ["dense"], "timings_ms": timings}

    return retrieve_dense


dense_failed = Fallback(
    breaker="vector_store",
    goto="fuse_results",
    update=lambda why: {
        "dense_hits": [],
        "notes": [f"Dense retrieval was unavailable ({why}); results come from BM25 only."],
    },
    reraise=(QueryError,),
)
"""Vector store down or slow: continue with BM25 only, and say so; a bad ``similar_to`` fails the run."""
