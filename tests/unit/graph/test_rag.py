"""The query graph's wiring: every router is a conditional edge, every exit is drawn, every node is timed;
retrieval is a subgraph that reads and writes its own small state."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest

from components.factory import Components
from components.resilience.errors import QueryError
from components.settings import Settings
from graph import routes
from graph.rag import build_rag_graph
from graph.retrieval import build_retrieval_graph
from graph.retrieval_state import RetrievalInput, RetrievalOutput
from graph.state import RESTART
from graph.steps import timed

ROUTERS = [
    ("guard_input", routes.after_guard),
    ("analyze_query", routes.after_analysis),
    ("check_cache", routes.after_cache),
    ("route_question", routes.after_route),
    ("rewrite_query", routes.retrieval),
    ("retrieve", routes.after_retrieval),
    ("retrieve_collections", routes.after_retrieval),
    ("grade_context", routes.after_context_grade),
    ("search_web", routes.after_reading),
    ("read_documents", routes.after_reading),
    ("check_hallucination", routes.after_hallucination_check),
    ("grade_answer", routes.after_answer_grade),
]


def exits(router: Any) -> tuple[str, ...]:
    """The node names a router may return: its ``Literal`` return annotation, which LangGraph draws."""
    return get_args(get_type_hints(router)["return"])


@pytest.fixture(scope="module")
def components(tmp_path_factory: pytest.TempPathFactory) -> Components:
    tmp: Path = tmp_path_factory.mktemp("wiring")
    return Components(Settings(qdrant_path=tmp / "q", data_dir=tmp / "d"))


@pytest.fixture(scope="module")
def graph(components: Components) -> Any:
    return build_rag_graph(components)


def test_each_router_is_the_conditional_edge_of_its_node(graph: Any) -> None:
    branches = graph.builder.branches
    for source, router in ROUTERS:
        (spec,) = branches[source].values()
        assert spec.path.func is router, source
        assert set(spec.ends) == set(exits(router)), source


def test_studio_draws_every_exit_of_every_router(graph: Any) -> None:
    edges = {(e.source, e.target) for e in graph.get_graph().edges}
    for source, router in ROUTERS:
        for target in exits(router):
            assert (source, target) in edges, (source, target)
    assert ("rewrite_query", "retrieve") in edges  # Q&A retrieves through the same subgraph as search


def test_studio_draws_retrievals_parallel_retrievers_and_the_rerankers_fallback(components: Components) -> None:
    edges = {(e.source, e.target) for e in build_retrieval_graph(components).get_graph().edges}
    assert edges == {
        ("__start__", "prepare_search"),
        ("prepare_search", "retrieve_dense"),
        ("prepare_search", "retrieve_bm25"),
        ("retrieve_dense", "fuse_results"),
        ("retrieve_bm25", "fuse_results"),
        ("fuse_results", "rerank_results"),
        ("rerank_results", "__end__"),
        ("rerank_results", "rerank_skipped"),  # the error handler's exit: the fused order stands
        ("rerank_skipped", "__end__"),
    }


def test_retrieval_reads_its_request_and_hands_back_only_the_request_and_the_results(graph: Any) -> None:
    node = graph.builder.nodes["retrieve"]
    assert node.input_schema is RetrievalInput  # the query graph reads only these keys for it
    retrieval = graph.nodes["retrieve"].subgraphs[0]
    assert set(retrieval.output_channels) == set(get_type_hints(RetrievalOutput))
    # the hits and the fused candidates stay inside retrieval
    assert not {"dense_hits", "bm25_hits", "retrievers", "candidates"} & set(graph.channels)
    # the run's depth and collection (settled by guard_input) are read, never changed, by retrieval
    assert {"top_k", "collection"} <= set(get_type_hints(RetrievalInput)) - set(get_type_hints(RetrievalOutput))


def test_a_timed_node_records_its_visit_after_the_steps_it_returns() -> None:
    async def reset_run(state: Any, runtime: Any) -> dict[str, Any]:
        return {"steps": None, "answer": ""}

    async def plain(state: Any, runtime: Any) -> dict[str, Any]:
        return {"answer": "x"}

    reset = asyncio.run(timed(reset_run)({}, runtime=None))
    assert reset["steps"][0] == RESTART and reset["steps"][1]["node"] == "reset_run"
    out = asyncio.run(timed(plain)({}, runtime=None))
    assert [s["node"] for s in out["steps"]] == ["plain"] and out["answer"] == "x"
    assert timed(plain).__name__ == "plain"  # the node's name in the graph


def test_a_query_error_leaves_a_node_as_a_value_error_with_its_message() -> None:
    async def bad(state: Any, runtime: Any) -> dict[str, Any]:
        raise QueryError("top_k must be between 1 and 1000, not 0.")

    with pytest.raises(QueryError, match="top_k must be") as caught:
        asyncio.run(timed(bad)({}, runtime=None))
    assert isinstance(caught.value, ValueError)  # the LangGraph server shows a ValueError's message
