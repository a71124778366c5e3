"""The query graph (``rag``): wiring only; the nodes live in ``nodes/rag``.

    prepare_search → (retrieve_dense ∥ retrieve_bm25) → fuse_results → rerank_results
        → END (mode="search") | generate_answer → END (mode="qa")

Dense retrieval has the vector-store timeout and falls back to BM25 alone; BM25 falls back to
dense alone; the reranker has its own timeout and falls back to the fused order.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from components.factory import Components
from graph.context import Context
from graph.state import InputState, OutputState, RAGState
from nodes.rag import fuse_results, generate_answer, prepare_search, rerank_results, retrieve_bm25, retrieve_dense


def after_ranking(state: RAGState) -> Literal["generate_answer", "__end__"]:
    return "__end__" if state.get("mode") == "search" else "generate_answer"


def build_rag_graph(components: Components | None = None, *, checkpointer: Any = None) -> Any:
    c = components or Components()
    s = c.settings
    builder = StateGraph(RAGState, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    builder.add_node(prepare_search.make(c))
    # langgraph's overloads do not list handlers that take a NodeError, hence the ignores
    builder.add_node(retrieve_dense.make(c), timeout=s.vector_timeout, error_handler=retrieve_dense.dense_failed)  # type: ignore[call-overload]
    builder.add_node(retrieve_bm25.make(c), error_handler=retrieve_bm25.bm25_failed)  # type: ignore[call-overload]
    builder.add_node(fuse_results.make(c))
    builder.add_node(rerank_results.make(c), timeout=s.reranker_timeout, error_handler=rerank_results.rerank_failed)  # type: ignore[call-overload]
    builder.add_node(rerank_results.make_skipped(c))
    builder.add_node(generate_answer.make(c))
    builder.add_edge(START, "prepare_search")
    builder.add_edge("prepare_search", "retrieve_dense")
    builder.add_edge("prepare_search", "retrieve_bm25")
    builder.add_edge("retrieve_dense", "fuse_results")
    builder.add_edge("retrieve_bm25", "fuse_results")
    builder.add_edge("fuse_results", "rerank_results")
    builder.add_conditional_edges("rerank_results", after_ranking)
    builder.add_conditional_edges("rerank_skipped", after_ranking)
    builder.add_edge("generate_answer", END)
    return builder.compile(name="rag", checkpointer=checkpointer)


graph = build_rag_graph()
