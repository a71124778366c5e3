"""Error handlers made by ``Fallback``: how a failed node continues the run, and what its breaker counts."""

from __future__ import annotations

import asyncio
import logging
from operator import add
from types import SimpleNamespace
from typing import Annotated, Any, TypedDict, cast

import pytest
from langgraph.errors import NodeError, NodeTimeoutError
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from components.factory import Components
from components.resilience.breaker import Breakers
from components.resilience.errors import CircuitOpen, QueryError, ServiceUnavailable
from graph.state import RAGState
from nodes.rag.failures import Fallback


def components(breakers: Breakers) -> Components:
    """The handler needs only the breakers of the components."""
    return cast(Components, SimpleNamespace(breakers=breakers))


DENSE = Fallback(
    breaker="vector_store",
    goto="fuse_results",
    update=lambda why: {"dense_hits": [], "notes": [f"Dense retrieval was unavailable ({why})."]},
    reraise=(QueryError,),
)


def fail(handler: Any, exc: BaseException, node: str = "retrieve_dense") -> Command[Any]:
    state = cast(RAGState, {"request_id": "req-7"})
    return cast(Command[Any], handler(state, NodeError(node=node, error=exc)))


def test_the_handler_goes_on_with_the_declared_update_and_logs_kind_node_and_request(
    caplog: pytest.LogCaptureFixture,
) -> None:
    handler = DENSE.handler(components(Breakers()))
    with caplog.at_level(logging.ERROR, logger="nodes.rag.common"):
        cmd = fail(handler, ServiceUnavailable("Qdrant at http://q:6333 did not answer"))
    assert cmd.goto == "fuse_results"
    assert cmd.update == {"dense_hits": [], "notes": ["Dense retrieval was unavailable (unreachable)."]}
    line = caplog.records[-1].getMessage()
    assert "kind=vector_store" in line and "node=retrieve_dense" in line and "request_id=req-7" in line


def test_only_the_node_timeout_is_counted_against_the_breaker() -> None:
    """The guard inside the node counted the other failures already; a timeout it saw only as a cancellation."""
    b = Breakers(fail_max=1)
    handler = DENSE.handler(components(b))
    fail(handler, ServiceUnavailable("down"))
    fail(handler, CircuitOpen("open", service="vector_store", retry_in=3))
    assert b.states().get("vector_store", "closed") == "closed"
    fail(handler, NodeTimeoutError("retrieve_dense", 5.1, kind="run", run_timeout=5.0))
    assert b.states()["vector_store"] == "open"


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (NodeTimeoutError("retrieve_dense", 5.1, kind="run", run_timeout=5.0), "timed out"),
        (TimeoutError(), "timed out"),
        (CircuitOpen("open", service="vector_store", retry_in=3), "paused after repeated failures"),
        (ServiceUnavailable("Qdrant at http://user:secret@q:6333 did not answer"), "unreachable"),
        (RuntimeError("model file /srv/models/x damaged"), "an error; details in the log"),
    ],
)
def test_users_read_what_went_wrong_in_words_without_class_names_or_internals(exc: Exception, words: str) -> None:
    cmd = fail(DENSE.handler(components(Breakers())), exc)
    note = cmd.update["notes"][0]
    assert note == f"Dense retrieval was unavailable ({words})."
    assert type(exc).__name__ not in note and "secret" not in note and "/srv" not in note


def test_errors_to_reraise_fail_the_run() -> None:
    with pytest.raises(QueryError, match="not in the index"):
        fail(DENSE.handler(components(Breakers())), QueryError("Document 'x' is not in the index"))


def test_without_a_breaker_nothing_is_counted_and_the_kind_names_the_log_line(
    caplog: pytest.LogCaptureFixture,
) -> None:
    b = Breakers(fail_max=1)
    bm25 = Fallback(kind="bm25", goto="fuse_results", update=lambda why: {"bm25_hits": []})
    with caplog.at_level(logging.ERROR, logger="nodes.rag.common"):
        timeout = NodeTimeoutError("retrieve_bm25", 1, kind="run", run_timeout=1)
        cmd = fail(bm25.handler(components(b)), timeout, node="retrieve_bm25")
    assert cmd.update == {"bm25_hits": []}
    assert b.states() == {}
    assert "kind=bm25 node=retrieve_bm25" in caplog.records[-1].getMessage()


class S(TypedDict, total=False):
    notes: Annotated[list[str], add]
    answer: str


def test_in_a_graph_node_timeouts_open_the_breaker_and_then_the_node_fails_fast() -> None:
    """LangGraph's ``timeout=`` cancels the node; the handler counts it, so the third run does not wait."""
    b = Breakers(fail_max=2, reset=60)
    calls: list[str] = []

    async def lookup(state: S) -> dict[str, Any]:
        async with b.guard("vector_store"):
            calls.append("lookup")
            await asyncio.sleep(5)
        return {"answer": "found"}

    async def fallback(state: S) -> dict[str, Any]:
        return {"answer": "fallback"}

    spec = Fallback(breaker="vector_store", goto="fallback", update=lambda why: {"notes": [why]})
    builder = StateGraph(S)
    builder.add_node(lookup, timeout=0.05, error_handler=spec.handler(components(b)))  # type: ignore[call-overload]
    builder.add_node(fallback)
    builder.add_edge(START, "lookup")
    builder.add_edge("fallback", END)
    graph = builder.compile()

    async def run() -> dict[str, Any]:
        out: dict[str, Any] = await graph.ainvoke({"notes": []})
        return out

    first, second = asyncio.run(run()), asyncio.run(run())
    assert first == second == {"notes": ["timed out"], "answer": "fallback"}
    assert b.states()["vector_store"] == "open"
    third = asyncio.run(run())
    assert third == {"notes": ["paused after repeated failures"], "answer": "fallback"}
    assert calls == ["lookup", "lookup"], "the open breaker kept the third run away from the service"
