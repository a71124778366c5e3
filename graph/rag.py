"""The query graph (``rag``): wiring only; the nodes live in ``nodes/rag``.

First version: retrieve (hybrid) → answer (extractive, cited). ``mode="search"`` ends after
retrieval with ranked results.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from components.factory import Components
from graph.context import Context
from graph.state import InputState, OutputState, RAGState
from nodes.rag import generate_answer, retrieve_documents


def after_retrieval(state: RAGState) -> Literal["generate_answer", "__end__"]:
    return "__end__" if state.get("mode") == "search" else "generate_answer"


def build_rag_graph(components: Components | None = None, *, checkpointer: Any = None) -> Any:
    c = components or Components()
    builder = StateGraph(RAGState, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    builder.add_node(retrieve_documents.make(c))
    builder.add_node(generate_answer.make(c))
    builder.add_edge(START, "retrieve_documents")
    builder.add_conditional_edges("retrieve_documents", after_retrieval)
    builder.add_edge("generate_answer", END)
    return builder.compile(name="rag", checkpointer=checkpointer)


graph = build_rag_graph()
