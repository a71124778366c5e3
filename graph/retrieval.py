"""The retrieval subgraph (``retrieve``): wiring only; search and Q&A both reach it in the query graph.

    prepare_search → (retrieve_dense ∥ retrieve_bm25) → fuse_results → rerank_results
                                                                      └ failed → rerank_skipped

It reads the request from the query graph (``graph/retrieval_state.py``: ``RetrievalInput``) and
hands back the settled request and the ranked results (``RetrievalOutput``); the hits and fused
candidates stay in its own state. Its nodes record their visits in ``steps`` as the query
graph's do, so a run's ``steps`` list retrieval's nodes by name.

Failure handling (LangGraph's own per-node policies): dense retrieval has the vector-store
timeout and falls back to BM25 alone; BM25 falls back to dense alone; the reranker has its
timeout and falls back to the fused order (``rerank_skipped``).
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from components.factory import Components
from graph.context import Context
from graph.retrieval_state import RetrievalInput, RetrievalOutput, RetrievalState
from graph.steps import timed
from nodes.rag import fuse_results, prepare_search, rerank_results, retrieve_bm25, retrieve_dense


def build_retrieval_graph(c: Components) -> Any:
    s = c.settings
    b = StateGraph(RetrievalState, context_schema=Context, input_schema=RetrievalInput, output_schema=RetrievalOutput)
    b.add_node(timed(prepare_search.make(c)))
    b.add_node(
        timed(retrieve_dense.make(c)), timeout=s.vector_timeout, error_handler=retrieve_dense.dense_failed.handler(c)
    )
    b.add_node(timed(retrieve_bm25.make(c)), error_handler=retrieve_bm25.bm25_failed.handler(c))
    b.add_node(timed(fuse_results.make(c)))
    b.add_node(
        timed(rerank_results.make(c)),
        timeout=s.reranker_timeout,
        error_handler=rerank_results.rerank_failed.handler(c),
        destinations=(END, "rerank_skipped"),  # drawn in Studio: the edge to END, and the error handler's exit
    )
    b.add_node(timed(rerank_results.make_skipped(c)))

    b.add_edge(START, "prepare_search")
    b.add_edge("prepare_search", "retrieve_dense")
    b.add_edge("prepare_search", "retrieve_bm25")
    b.add_edge("retrieve_dense", "fuse_results")
    b.add_edge("retrieve_bm25", "fuse_results")
    b.add_edge("fuse_results", "rerank_results")
    b.add_edge("rerank_results", END)
    b.add_edge("rerank_skipped", END)
    return b.compile(name="retrieve")
