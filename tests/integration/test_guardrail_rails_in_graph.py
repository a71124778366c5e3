"""The rails in the Q&A graph: NeMo's LLM self-check, the output rail's leak block and PII mask.

Chat models are ``ScriptedChatModel`` instances injected per role; NeMo Guardrails, the checks,
the store and the embedder are real.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage

from components.factory import Components
from components.resilience.errors import LLMUnavailable
from components.text import messages
from graph.context import Context
from graph.rag import build_rag_graph
from nodes.rag import prompts
from tests.fakes.scripted_llm import ScriptedChatModel
from tests.integration.helpers import sample_store, with_models

pytestmark = pytest.mark.integration

MONSTERA = "When should I water the monstera?"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    c, _ = sample_store(tmp_path_factory.mktemp("rails"))
    yield c


def graders(messages_: list[BaseMessage]) -> Any:
    system = str(messages_[0].content)
    if system.startswith(prompts.GRADE_CONTEXT_SYSTEM[:40]):
        return {"relevant": [1], "reason": "scripted"}
    if system.startswith(prompts.HALLUCINATION_SYSTEM[:40]):
        return {"grounded": True, "unsupported": []}
    return {"useful": True, "reason": "scripted"}


def routes(messages_: list[BaseMessage]) -> Any:
    if str(messages_[0].content).startswith(prompts.ANALYZE_SYSTEM[:40]):
        return {"tags": [], "vaults": [], "created_from": None, "created_to": None}
    return {"route": "vector_search", "reason": "scripted"}


def rewrites(messages_: list[BaseMessage]) -> Any:
    last = next(m for m in reversed(messages_) if isinstance(m, HumanMessage))
    return {"question": str(last.content), "hypothetical_answer": ""}


def models(generator: list[str], grader: ScriptedChatModel | None = None) -> dict[str, Any]:
    return {
        "router": ScriptedChatModel(routes),
        "rewriter": ScriptedChatModel(rewrites),
        "grader": grader or ScriptedChatModel(graders),
        "generator": ScriptedChatModel(generator),
    }


def ask(c: Components, question: str, **ctx: Any) -> dict[str, Any]:
    out: dict[str, Any] = asyncio.run(
        build_rag_graph(c).ainvoke({"question": question, "debug": True}, context=Context(cache=False, **ctx))
    )
    return out


def test_the_llm_self_check_blocks_what_the_classifier_lets_through(store: Components) -> None:
    grader = ScriptedChatModel(graders, self_check_reply="Yes")
    c = with_models(store, **models(["never generated"], grader=grader))
    out = ask(c, "モンステラの水やりはいつ？")
    assert out["route"] == "blocked"
    assert out["answer"] == messages.REFUSAL["ja"]
    assert out["escalation"]["node"] == "guard_input"
    assert len(grader.self_checks) == 1 and "モンステラ" in str(grader.self_checks[0][-1].content)
    assert grader.calls == []  # blocked before any grading


def test_the_self_check_is_skipped_when_the_run_turns_it_off(store: Components) -> None:
    grader = ScriptedChatModel(graders, self_check_reply="Yes")
    c = with_models(store, **models(["Water it when the top soil is dry [1]."], grader=grader))
    out = ask(c, MONSTERA, llm_input_check=False)
    assert out["route"] == "vector_search" and out["path"] == "llm"
    assert grader.self_checks == []


def test_a_failing_self_check_leaves_the_non_llm_verdict_standing(store: Components) -> None:
    grader = ScriptedChatModel(graders)
    grader.self_check_reply = "No"
    c = with_models(store, **models(["Water it when the top soil is dry [1]."], grader=grader))

    async def broken(text: str, llm: Any) -> bool:
        raise LLMUnavailable("the grader model is down", kind="connection")

    from nodes.rag.rails import rails_of

    rails_of(c).self_check_input = broken  # type: ignore[method-assign]
    out = ask(c, MONSTERA)
    assert out["path"] == "llm" and out["answer"].startswith("Water it")
    assert messages.SELF_CHECK_FAILED.format(why="the LLM is unavailable") in out["warnings"]


def test_the_self_check_streams_no_tokens_to_the_client(store: Components) -> None:
    answer = "Water it when the top soil is dry [1]."
    c = with_models(store, **models([answer]))

    async def stream() -> list[str]:
        nodes = []
        async for msg, meta in build_rag_graph(c).astream(
            {"question": MONSTERA}, context=Context(cache=False), stream_mode="messages"
        ):
            if isinstance(msg, AIMessageChunk):
                nodes.append(meta["langgraph_node"])
        return nodes

    assert set(asyncio.run(stream())) == {"generate_answer"}


def test_an_answer_that_leaks_the_system_prompt_is_withheld(store: Components) -> None:
    first_line = prompts.GENERATE_SYSTEM.strip().splitlines()[0]
    c = with_models(store, **models([f"Sure. My instructions: {first_line} [1]"]))
    out = ask(c, MONSTERA)
    assert out["answer"] == messages.REFUSAL["en"]
    assert out["sources"] == []
    assert out["escalation"]["node"] == "guard_output"
    assert any("output guardrail withheld" in w for w in out["warnings"])


def test_personal_data_the_sources_do_not_hold_is_masked_and_citations_stay(store: Components) -> None:
    c = with_models(store, **models(["Water it when the soil is dry [1]. Questions: call 090-3141-5926 [1]."]))
    out = ask(c, MONSTERA)
    assert "090-3141-5926" not in out["answer"]
    assert out["answer"].count("[1]") == 2
    assert any("masked personal data" in w for w in out["warnings"])


def streamed(c: Components, question: str) -> tuple[str, dict[str, Any]]:
    """The text a ``stream_mode="messages"`` client sees, and the run's final state."""

    async def go() -> tuple[str, dict[str, Any]]:
        text, final = "", {}
        async for mode, chunk in build_rag_graph(c).astream(
            {"question": question}, context=Context(cache=False), stream_mode=["messages", "values"]
        ):
            if mode == "messages" and isinstance(chunk[0], AIMessageChunk):
                text += str(chunk[0].content)
            elif mode == "values":
                final = chunk
        return text, final

    return asyncio.run(go())


def test_streamed_sentences_are_checked_before_the_client_sees_them(store: Components) -> None:
    answer = "Water it when the top soil is dry [1]. Questions: call 090-3141-5926 [1]."
    text, out = streamed(with_models(store, **models([answer])), MONSTERA)
    assert text.startswith("Water it when the top soil is dry [1].")
    assert "090-3141-5926" not in text and "[1]." in text.split("Questions:")[1]
    assert out["answer"] == text.strip()  # the final answer is the same masked text


def test_a_leak_stops_the_stream_before_the_leaking_sentence(store: Components) -> None:
    first_line = prompts.GENERATE_SYSTEM.strip().splitlines()[0]
    answer = f"Water it when the top soil is dry [1]. By the way, {first_line} That is all."
    text, out = streamed(with_models(store, **models([answer])), MONSTERA)
    assert text.strip() == "Water it when the top soil is dry [1]."
    assert out["answer"] == messages.REFUSAL["en"]  # the whole answer is withheld at the end
