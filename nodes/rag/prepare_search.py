"""Validate the request and settle what to search: phrasings and filters (once per retrieval).

``top_k`` and the collection come settled for the whole run (``guard_input``)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import CollectionOutdated, QueryError, ServiceUnavailable, UnknownDocument
from components.retrieval.dense import has_document
from components.retrieval.filters import SearchFilters
from components.stores.edge_models import filter_json
from components.text.language import detect_language
from graph.context import Context
from graph.retrieval_state import RetrievalState
from nodes.rag.common import run_filters
from nodes.types import RetrievalNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def prepare_search(state: RetrievalState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = state.get("question") or ""  # guard_input settled it (or the last human message)
        similar_to = (state.get("similar_to") or "").strip()
        if not question.strip() and not similar_to:
            raise QueryError("The query is empty: give some words to search for (or a human message).")
        filters = SearchFilters.parse(state.get("search_filters") or state.get("filters"))
        # Q&A: rewrite_query settled the phrasings; search: the question plus any extra phrasings
        primary = [] if state.get("mode", "qa") == "qa" and state.get("queries") else [question]
        queries = [q.strip() for q in [*primary, *(state.get("queries") or [])] if q and q.strip()]
        index = c.index(state["collection"])

        def check() -> dict[str, Any]:
            meta = index.metadata()  # raises CollectionNotFound with "run rag ingest"
            index.check_model(meta, embedding_model=c.embedder.model_id)
            # a document outside the caller's access groups is as unknown as one never ingested
            if similar_to and not has_document(
                index, similar_to, within=run_filters(c, state, ctx).access_only().to_qdrant()
            ):
                raise UnknownDocument(similar_to, index.collection)
            # load what the retrievers read here, where no timeout runs: a fresh process's model,
            # and what their filters consult (run_filters: the collection's term statistics, counted
            # once if missing), so that a first load does not eat the vector store's timeout
            c.embedder.warm_up_for_queries(len(queries))
            try:
                c.corpus(index.collection, version=int(meta.get("version", 0)))
            except CollectionOutdated:  # an earlier version's collection: the user is told what to run
                raise
            except Exception as e:  # retrieve_bm25 reports it; dense search goes on
                log.debug("collection statistics not loaded ahead of retrieval: %s", e)
            return meta

        notes: list[str] = []
        try:
            meta = await asyncio.to_thread(check)
        except ServiceUnavailable as e:  # the retrieval nodes' fallbacks say what is missing
            log.warning("vector store unavailable: %s", e)
            meta, notes = {}, [f"The vector store did not answer: {e}"]
        queries = list(dict.fromkeys(queries))
        dense_queries = list(state.get("dense_queries") or [])
        return {
            "notes": notes,
            "question": question,
            "queries": queries,
            "dense_queries": dense_queries if len(dense_queries) == len(queries) else [],
            "search_filters": filters.model_dump(mode="json", exclude_defaults=True),
            "language": state.get("language") or (detect_language(question) if question else "und"),
            "route": state.get("route") or "vector_search",
            "trace": {
                "collection": index.collection,
                "index_version": meta.get("version"),
                "vector_size": meta.get("dim"),
                "embedding_model": meta.get("embedding_model"),
                "qdrant_filter": _filter_json(filters),
            },
        }

    return prepare_search


def _filter_json(filters: SearchFilters) -> Any:
    q = filters.to_qdrant()
    return filter_json(q) if q is not None else None
