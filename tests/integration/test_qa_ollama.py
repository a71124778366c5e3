"""The Q&A graph with the real langchain-ollama client against an Ollama-protocol test server.

Covers what only a real client shows: structured outputs sent as ``format`` JSON schemas, the
answer streaming token by token, retries on HTTP 500, the LLM breaker opening (runs then answer
extractively without touching the server) and closing again, a slow model cut by the timeout,
and a server that is down (the extractive path).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk

from components.factory import Components
from components.text import messages
from graph.context import Context
from graph.rag import build_rag_graph
from tests.fakes.ollama_server import Behaviour, ollama_server
from tests.integration.helpers import sample_store, with_llm_server

pytestmark = pytest.mark.integration

ANSWER = "Water the monstera only when the top 5 cm of soil is dry [1]."


def reply(payload: dict[str, Any]) -> str | dict[str, Any]:
    """A well-behaved model: each structured call gets a valid object, plain calls the answer."""
    schema = payload.get("format")
    if not isinstance(schema, dict):
        return ANSWER
    title = schema.get("title")
    if title == "ExtractedFilters":
        return {"tags": [], "vaults": [], "created_from": None, "created_to": None}
    if title == "RouteDecision":
        return {"route": "vector_search", "reason": "about the user's notes"}
    if title == "Rewrite":
        last = [m for m in payload["messages"] if m["role"] == "user"][-1]["content"]
        return {"question": last, "hypothetical_answer": "Monstera plants need water when the soil is dry."}
    if title == "ContextGrade":
        return {"relevant": [1], "reason": "passage 1 is about watering"}
    if title == "HallucinationGrade":
        return {"grounded": True, "unsupported": []}
    if title == "AnswerGrade":
        return {"useful": True, "reason": "answers it"}
    raise AssertionError(f"unexpected schema {title}")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    c, _ = sample_store(tmp_path_factory.mktemp("qa-ollama"))
    yield c
    c.close()


@pytest.fixture
def server() -> Iterator[tuple[str, Behaviour]]:
    with ollama_server(Behaviour(chat_handler=reply)) as s:
        yield s


def run(c: Components, question: str = "When should I water the monstera?", **ctx: Any) -> dict[str, Any]:
    out: dict[str, Any] = asyncio.run(
        build_rag_graph(c).ainvoke({"question": question, "debug": True}, context=Context(cache=False, **ctx))
    )
    return out


def test_llm_path_end_to_end_with_json_schema_formats(indexed: Components, server: tuple[str, Behaviour]) -> None:
    url, b = server
    out = run(with_llm_server(indexed, url))
    assert out["path"] == "llm" and out["answer"] == ANSWER
    assert out["sources"] and out["sources"][0]["n"] == 1
    titles = [r["format"]["title"] for r in b.chat_requests if isinstance(r.get("format"), dict)]
    assert titles == [
        "ExtractedFilters",
        "RouteDecision",
        "Rewrite",
        "ContextGrade",
        "HallucinationGrade",
        "AnswerGrade",
    ]
    assert out["debug_info"]["hyde"] is True  # the hypothetical answer drove dense retrieval
    # the answer request asked for English and carried the numbered passages in the user's turn
    answer_request = b.chat_requests[-3]["messages"]
    assert "English" in answer_request[0]["content"] and '<passage id="1">' in answer_request[-1]["content"]


def test_prompts_edited_for_one_run_reach_the_model(indexed: Components, server: tuple[str, Behaviour]) -> None:
    url, b = server
    prompt = "Answer like a gardener, in {language_name}."
    out = run(with_llm_server(indexed, url), generate_prompt=prompt, route_prompt="Route it. {Braces stay}.")
    assert out["answer"] == ANSWER
    systems = [r["messages"][0]["content"] for r in b.chat_requests if r["messages"][0]["role"] == "system"]
    assert "Route it. {Braces stay}." in systems
    generation = [
        r["messages"] for r in b.chat_requests if r["messages"][0]["content"] == "Answer like a gardener, in English."
    ]
    assert len(generation) == 1 and '<passage id="1">' in generation[0][-1]["content"]
    # the next run without edits uses the default wording again
    b.requests.clear()
    run(with_llm_server(indexed, url))
    assert not any("gardener" in r["messages"][0]["content"] for r in b.chat_requests)


def test_answer_streams_sentence_by_sentence_from_the_generator_only(
    indexed: Components, server: tuple[str, Behaviour]
) -> None:
    url, b = server
    sentences = ["Water the monstera only when the top 5 cm of soil is dry [1]. ", "Do not let it stand in water. ",
                 "In winter, water less often [1]."]  # fmt: skip
    b.chat_handler = lambda payload: reply(payload) if isinstance(payload.get("format"), dict) else "".join(sentences)
    g = build_rag_graph(with_llm_server(indexed, url))

    async def go() -> list[tuple[str, str]]:
        got: list[tuple[str, str]] = []
        async for msg, meta in g.astream(
            {"question": "When should I water the monstera?"}, context=Context(cache=False), stream_mode="messages"
        ):
            if isinstance(msg, AIMessageChunk) and msg.content:
                got.append((meta["langgraph_node"], str(msg.content)))
        return got

    tokens = asyncio.run(go())
    assert {n for n, _ in tokens} == {"generate_answer"}
    # the model streams word by word; clients get each sentence once the output check has passed it
    assert [t for _, t in tokens] == sentences


def test_http_500s_are_retried_then_the_run_ends_with_a_generic_message(
    indexed: Components, server: tuple[str, Behaviour]
) -> None:
    url, b = server
    c = with_llm_server(indexed, url)

    def fail_answers(payload: dict[str, Any]) -> str | dict[str, Any]:
        if not isinstance(payload.get("format"), dict):
            raise RuntimeError("boom")  # the server answers HTTP 500
        return reply(payload)

    b.chat_handler = fail_answers
    out = run(c, use_llm=True)
    answers = [r for r in b.chat_requests if not isinstance(r.get("format"), dict)]
    assert len(answers) == 3  # one try and LLM_RETRIES=2 retries
    assert out["path"] == "none" and out["escalation"]["node"] == "fail_run"
    assert out["request_id"] in out["answer"] and "500" not in out["answer"]


def test_breaker_opens_after_five_failures_then_closes_after_the_reset(
    indexed: Components, server: tuple[str, Behaviour]
) -> None:
    url, b = server
    c = with_llm_server(indexed, url, breaker_reset=1.0, llm_retries=0)
    b.fail_next = 5  # the first five chat calls of the first run fail: analysis, routing, rewrite, grading, answer
    first = run(c, llm_input_check=False)  # (the self-check would be one more call before them)
    assert c.breakers.get("llm").state == "open"
    assert first["path"] == "none"  # the generator failed: error end
    seen = len(b.requests)
    second = run(c)  # the breaker is open: every node takes its non-LLM path, the server is not called
    assert second["path"] == "extractive" and second["sources"]
    assert len(b.requests) == seen
    time.sleep(1.1)
    third = run(c)  # half-open: the trial call succeeds and the breaker closes
    assert c.breakers.get("llm").state == "closed"
    assert third["path"] == "llm" and third["answer"] == ANSWER


def test_a_hanging_model_costs_one_timeout_and_the_question_is_answered_by_extraction(
    indexed: Components, server: tuple[str, Behaviour]
) -> None:
    url, b = server
    c = with_llm_server(indexed, url, llm_timeout=0.5, llm_retries=1)
    b.chat_delay = 30.0  # accepts the connection, never answers in time
    out = run(c)
    # the first LLM call (query analysis) timed out; no other node of this question asked the model
    assert len(b.chat_requests) + len(b.self_checks) == 1, [r.get("format", {}).get("title") for r in b.chat_requests]
    assert out["path"] == "extractive" and out["sources"] and "5 cm" in out["answer"]
    assert out["debug_info"]["analysis"]["path"] == "rules"
    assert any(w.startswith("Answered by extraction:") and "timed out" in w for w in out["warnings"]), out["warnings"]
    # the next question starts afresh: it asks the model again (and the server answers this time)
    b.chat_delay = 0.0
    again = run(c)
    assert again["path"] == "llm" and again["answer"] == ANSWER


def test_each_role_has_its_own_timeout_and_a_run_its_deadline(indexed: Components) -> None:
    s = indexed.settings.model_copy(update={"llm_timeout": 40.0, "llm_timeout_grader": 12.0})
    assert [s.llm_timeout_for(r) for r in ("router", "rewriter", "grader", "generator")] == [15.0, 20.0, 12.0, 40.0]
    assert s.llm_deadline == 160.0
    short = indexed.settings.model_copy(update={"llm_timeout": 5.0, "llm_run_deadline": 8.0})
    assert [short.llm_timeout_for(r) for r in ("router", "rewriter", "grader", "generator")] == [5.0] * 4
    assert short.llm_deadline == 8.0


def test_server_down_answers_extractively(indexed: Components) -> None:
    with ollama_server(Behaviour(chat_handler=reply)) as (url, _):
        pass  # the server is gone once the block ends
    c = with_llm_server(indexed, url)
    out = run(c)
    assert out["path"] == "extractive" and out["sources"]
    assert any("unavailable" in w for w in out["warnings"])
    assert out["answer"] != messages.FALLBACK["en"]


def test_structured_reply_that_breaks_the_schema_falls_back_per_node(
    indexed: Components, server: tuple[str, Behaviour]
) -> None:
    url, b = server

    def broken_router(payload: dict[str, Any]) -> str | dict[str, Any]:
        fmt = payload.get("format")
        if isinstance(fmt, dict) and fmt.get("title") == "RouteDecision":
            return json.dumps({"route": "teleport"})
        return reply(payload)

    b.chat_handler = broken_router
    out = run(with_llm_server(indexed, url))
    assert out["route"] == "vector_search" and out["path"] == "llm"  # routed by exemplars instead


LEAF_SCORCH = "観葉植物の葉焼けを防ぐにはどこに置けばいい？"


def translating(translation: str) -> Any:
    """A model whose rewriter also translates the question when the prompt asks for it."""

    def handler(payload: dict[str, Any]) -> str | dict[str, Any]:
        schema = payload.get("format")
        if isinstance(schema, dict) and schema.get("title") == "Rewrite":
            system = payload["messages"][0]["content"]
            asked = "Also write translation" in system
            return {"question": LEAF_SCORCH, "hypothetical_answer": "", "translation": translation if asked else ""}
        return reply(payload)

    return handler


def test_the_rewriter_translates_a_question_for_notes_in_the_other_language(indexed: Components) -> None:
    english = "Where should I put a houseplant so that its leaves do not get scorched by the sun?"
    found: dict[str, list[str]] = {}
    for label, translation in (("translated", english), ("not translated", "")):
        with ollama_server(Behaviour(chat_handler=translating(translation))) as (url, b):
            out = run(with_llm_server(indexed, url), question=LEAF_SCORCH)
            rewrite = next(r for r in b.chat_requests if (r.get("format") or {}).get("title") == "Rewrite")
        # the vaults hold both languages, so the rewriter is asked for an English phrasing
        assert "Also write translation" in rewrite["messages"][0]["content"]
        assert "in English" in rewrite["messages"][0]["content"]
        found[label] = [str(s.get("title")) for s in out["sources"]]
        assert out["debug_info"]["translated"] is bool(translation)
    assert "Monstera Care" in found["translated"], found
    assert "Monstera Care" not in found["not translated"], found
