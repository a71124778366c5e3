"""A LangChain retriever over the query graph's search mode, for chat apps built on LangChain.

Each call is one ``mode="search"`` run of the compiled graph, so a chain gets exactly what
``rag search`` returns: dense and BM25 retrieval under the same filters, fusion, reranking, the
vector-store and BM25 fallbacks, and the graph's typed errors (``QueryError`` for a bad filter,
``CollectionNotFound`` for a missing collection). Nothing here ranks or filters by itself.

    retriever = GraphRetriever.from_settings(top_k=5, filters={"vaults": ["research"]})
    docs = await retriever.ainvoke("RRF の k の値")
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import logging
from collections.abc import Coroutine, Mapping
from typing import Any, TypeVar

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun, Callbacks
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import Field, PrivateAttr, field_validator

from components.factory import Components
from components.retrieval.filters import SearchFilters
from components.settings import Settings
from graph.context import Context
from graph.rag import build_rag_graph
from graph.state import Result

log = logging.getLogger(__name__)

T = TypeVar("T")


class GraphRetriever(BaseRetriever):
    """Ranked chunks of the query graph's search mode as LangChain ``Document``s.

    ``page_content`` is the chunk's text; ``metadata`` is the search result without it: ``rank``,
    ``score`` (0..1), ``chunk_id``, ``doc_id``, ``source``, ``title``, ``section_hierarchy``,
    ``chunk``, ``vault``, ``tags``, ``created``, ``modified``, ``language``, ``parent_id``,
    ``ranks`` and ``retriever_scores`` per retriever, and ``metadata`` (the document's own:
    frontmatter extras, a JSONL record's metadata). ``Document.id`` is the chunk id.
    """

    graph: Any = Field(description="The compiled query graph (build_rag_graph), built without a checkpointer.")
    top_k: int | None = Field(
        default=None, ge=1, le=1000, description="Chunks to return; None means the Context's top_k."
    )
    filters: dict[str, Any] = Field(
        default_factory=dict,
        description="Metadata filters, as the graph's input takes them (vaults, tags, created_from, where, ...).",
    )
    collection: str = Field(default="", description="Collection to search; empty means the Context's, then COLLECTION.")
    context: Context = Field(
        default_factory=Context,
        description="Run-time knobs (fusion, rerank, min_score, ...): a Context or a dict of its fields.",
    )
    _owned: Components | None = PrivateAttr(default=None)

    @field_validator("graph")
    @classmethod
    def _searchable(cls, graph: Any) -> Any:
        # a checkpointer would need a thread per call and would keep every search's state
        if not hasattr(graph, "ainvoke"):
            raise ValueError("graph must be the compiled query graph (graph.rag.build_rag_graph)")
        if getattr(graph, "checkpointer", None):
            raise ValueError(
                "the graph has a checkpointer; searches are stateless, so build one without it: "
                "build_rag_graph(components) or GraphRetriever.from_components(components)"
            )
        return graph

    @field_validator("filters", mode="before")
    @classmethod
    def _valid_filters(cls, raw: Mapping[str, Any] | SearchFilters | None) -> dict[str, Any]:
        # QueryError (not a ValueError) passes through pydantic as is: the same message the graph gives
        parsed = SearchFilters.parse(dict(raw) if isinstance(raw, Mapping) else raw)
        return parsed.model_dump(mode="json", exclude_defaults=True)

    @field_validator("context", mode="before")
    @classmethod
    def _as_context(cls, raw: Any) -> Any:
        if isinstance(raw, Mapping):
            known = {f.name for f in dataclasses.fields(Context)}
            unknown = sorted(set(raw) - known)
            if unknown:
                raise ValueError(f"unknown Context fields {unknown}; known: {', '.join(sorted(known))}")
            return Context(**raw)
        return raw

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_components(cls, components: Components, **fields: Any) -> GraphRetriever:
        """Over a new query graph on these components (their store, models and caches are shared)."""
        return cls(graph=build_rag_graph(components), **fields)

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **fields: Any) -> GraphRetriever:
        """Over components built from ``settings`` (None: the environment and ``.env``).

        The retriever owns those components: ``close()`` releases the Qdrant client, which the
        embedded store needs before another process (or another client) may open its folder.
        """
        components = Components(settings)
        retriever = cls.from_components(components, **fields)
        retriever._owned = components
        return retriever

    def close(self) -> None:
        """Release the components ``from_settings`` built; a no-op for a graph given by the caller."""
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    # ------------------------------------------------------------------ retrieval
    def run_input(self, query: str) -> dict[str, Any]:
        """The graph input of one search: what ``rag search`` sends for the same query and options."""
        payload: dict[str, Any] = {"mode": "search", "question": query, "filters": self.filters}
        if self.top_k is not None:
            payload["top_k"] = self.top_k
        return payload

    def run_context(self) -> Context:
        return dataclasses.replace(self.context, collection=self.collection) if self.collection else self.context

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return await self._search(query, run_manager.get_child())

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        # the graph's nodes are async (LangGraph's per-node timeouts need it), so a sync call runs a loop
        return _run(self._search(query, run_manager.get_child()))

    async def _search(self, query: str, callbacks: Callbacks) -> list[Document]:
        # the callbacks nest the graph's run under the retriever's in traces (LangSmith, Studio)
        out: dict[str, Any] = await self.graph.ainvoke(
            self.run_input(query), {"callbacks": callbacks}, context=self.run_context()
        )
        for warning in out.get("warnings") or []:
            log.info("search %s: %s", out.get("request_id") or "-", warning)
        return [to_document(r) for r in out.get("results") or []]


def to_document(result: Result | Mapping[str, Any]) -> Document:
    """A search result as a LangChain document: its text as content, everything else as metadata."""
    metadata = {k: v for k, v in result.items() if k != "text"}
    chunk_id = result.get("chunk_id")
    return Document(page_content=str(result.get("text") or ""), metadata=metadata, id=chunk_id)


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from sync code, also when the caller's thread runs a loop.

    ``asyncio.run`` refuses to start inside a running loop (a notebook, a sync tool called from
    async code), so that case runs it on a worker thread and waits.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
