"""Routers run at the end of their node: same decisions as conditional edges, every exit still drawn."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import pytest
from langgraph.types import Command

from components.factory import Components
from components.settings import Settings
from graph import routes
from graph.rag import build_rag_graph
from graph.routed import chained, destinations, merge_updates, routed, state_after


def test_state_after_applies_the_declared_reducers() -> None:
    state: dict[str, Any] = {"trace": {"web_available": True}, "steps": [{"node": "a"}], "route": "x"}
    view = state_after(state, {"trace": {"hyde": False}, "steps": [{"node": "b"}], "route": "y"})  # type: ignore[arg-type]
    assert view["trace"] == {"web_available": True, "hyde": False}  # merged, as LangGraph would
    assert [s["node"] for s in view["steps"]] == ["a", "b"]  # extended
    assert view["route"] == "y"  # plain keys are replaced
    assert state["trace"] == {"web_available": True}  # the node's input is not touched


def test_a_chain_is_the_two_nodes_one_after_the_other() -> None:
    async def first(state: Any, runtime: Any) -> dict[str, Any]:
        return {"queries": ["q1"], "steps": [{"node": "first"}], "notes": ["a"]}

    async def second(state: Any, runtime: Any) -> dict[str, Any]:
        # sees the first's update as a step of its own would
        return {"queries": [*state["queries"], "q2"], "steps": [{"node": "second"}], "notes": ["b"]}

    out = asyncio.run(chained(first, second)({"steps": [{"node": "before"}], "notes": []}, runtime=None))
    assert out["queries"] == ["q1", "q2"]  # plain keys: the second's value
    assert [s["node"] for s in out["steps"]] == ["first", "second"]  # reducer keys: both, in order
    assert out["notes"] == ["a", "b"]
    assert chained(first, second).__name__ == "first"
    assert merge_updates({"trace": {"a": 1}}, {"trace": {"b": 2}}) == {"trace": {"a": 1, "b": 2}}


def test_router_sees_the_nodes_own_update() -> None:
    async def grade(state: Any, runtime: Any) -> dict[str, Any]:
        return {"context_verdict": {"relevant": False}, "context_failures": 4}

    node = routed(grade, routes.after_context_grade)
    out = asyncio.run(node({"context_failures": 3}, runtime=None))
    assert isinstance(out, Command)
    assert out.goto == "fallback_answer"  # 4 failures > the default cap of 3
    assert out.update == {"context_verdict": {"relevant": False}, "context_failures": 4}


def test_a_router_returning_an_undeclared_node_is_an_error() -> None:
    def broken(state: Any) -> Literal["a", "b"]:
        return "c"  # type: ignore[return-value]

    async def node(state: Any, runtime: Any) -> dict[str, Any]:
        return {}

    with pytest.raises(ValueError, match="broken returned 'c'"):
        asyncio.run(routed(node, broken)({}, runtime=None))


def test_destinations_come_from_the_literal_annotation() -> None:
    assert destinations(routes.after_route) == ("rewrite_query", "search_web", "answer_directly")

    def untyped(state: Any) -> str:
        return "x"

    with pytest.raises(TypeError, match="Literal"):
        destinations(untyped)


def test_studio_draws_every_exit_of_every_router(tmp_path: Any) -> None:
    graph = build_rag_graph(Components(Settings(qdrant_path=tmp_path / "q", data_dir=tmp_path / "d")))
    edges = {(e.source, e.target) for e in graph.get_graph().edges}
    for source, router in [
        ("guard_input", routes.after_guard),
        ("analyze_query", routes.after_analysis),
        ("check_cache", routes.after_cache),
        ("route_question", routes.after_route),
        ("rerank_results", routes.after_ranking),
        ("grade_context", routes.after_context_grade),
        ("search_web", routes.after_web_search),
        ("check_hallucination", routes.after_hallucination_check),
        ("grade_answer", routes.after_answer_grade),
    ]:
        for target in destinations(router):
            assert (source, "__end__" if target == "END" else target) in edges, (source, target)
