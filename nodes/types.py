"""Call signatures of graph nodes, typed so that ``StateGraph.add_node`` accepts them."""

from __future__ import annotations

from typing import Any, Protocol

from langgraph.runtime import Runtime

from graph.context import Context
from graph.ingest_state import IngestContext, IngestState
from graph.retrieval_state import RetrievalState
from graph.state import RAGState


class IngestNode(Protocol):
    __name__: str

    async def __call__(self, state: IngestState, *, runtime: Runtime[IngestContext]) -> dict[str, Any]: ...


class RAGNode(Protocol):
    __name__: str

    async def __call__(self, state: RAGState, *, runtime: Runtime[Context]) -> dict[str, Any]: ...


class RetrievalNode(Protocol):
    __name__: str

    async def __call__(self, state: RetrievalState, *, runtime: Runtime[Context]) -> dict[str, Any]: ...
