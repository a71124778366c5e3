"""BM25 over the same chunks (filters applied the same way); on failure, dense results alone."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from functools import partial
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.retrieval.hits import LISTED
from components.retrieval.lexical import engine_search
from graph.context import Context
from graph.retrieval_state import RetrievalState
from nodes.rag.common import depth, run_filters
from nodes.rag.failures import Fallback
from nodes.rag.rails import for_retrieval
from nodes.types import RetrievalNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def retrieve_bm25(state: RetrievalState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        if state.get("similar_to") or "bm25" not in ctx.retrievers:  # "more like this" is a vector question
            return {"bm25_hits": []}
        filters = await asyncio.to_thread(run_filters, c, state, ctx)
        limit = max(ctx.candidates, depth(state))
        queries = for_retrieval(state, state.get("queries") or [])
        # BM25 and its filters run in the store, beside the vectors, each query term weighed by the
        # collection's ranking idf (components/stores/lexical.py)
        lexical = await asyncio.to_thread(c.lexical, state["collection"])
        scale = await asyncio.to_thread(ranking_scale, c, state["collection"])
        search = partial(engine_search, lexical, queries, filters, limit=limit, fields=LISTED, scale=scale)
        hits, timings = await asyncio.wait_for(asyncio.to_thread(search), timeout=c.settings.bm25_timeout)
        return {
            "bm25_hits": [[h.to_dict() for h in q] for q in hits],
            "retrievers": ["bm25"],
            "timings_ms": timings,
        }

    return retrieve_bm25


def ranking_scale(c: Components, collection: str) -> Mapping[str, float] | None:
    """The collection's ranking idf per term (``Corpus.ranking``), or None, so that the engine's
    own IDF ranks, when its term statistics cannot be read."""
    try:
        return c.corpus(collection).ranking
    except Exception as e:
        log.warning("BM25 ranks with the store's own IDF: the term statistics of %r are unreadable (%s)", collection, e)
        return None


bm25_failed = Fallback(
    kind="bm25",
    goto="fuse_results",
    update=lambda why: {
        "bm25_hits": [],
        "notes": [f"BM25 retrieval failed ({why}); results come from dense retrieval only."],
    },
)
"""The lexical index could not be read or its search ran past BM25_TIMEOUT: continue with dense results only
(BM25 calls no service: no breaker)."""
