"""ChatModels with scripted models: what a graph node sees when it asks for answers and verdicts."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict, cast

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, Field

from components.models.chat import ChatModels
from components.resilience.breaker import Breakers
from components.resilience.errors import LLMError, LLMUnavailable
from components.settings import Settings
from tests.fakes.scripted_llm import ScriptedChatModel


class Grade(BaseModel):
    relevant: bool = Field(description="Whether the context answers the question.")
    reason: str = Field(description="One sentence.")


def no_llm_settings(**kw: Any) -> Settings:
    return Settings(_env_file=None, **kw)  # type: ignore[call-arg]


def q(text: str) -> list[BaseMessage]:
    return [HumanMessage(text)]


def test_scripted_model_streams_words_and_records_calls() -> None:
    m = ScriptedChatModel(["Water it weekly.", "second"])

    async def chunks() -> list[str]:
        return [str(c.content) async for c in m.astream(q("When?"))]

    assert [t for t in asyncio.run(chunks()) if t] == ["Water ", "it ", "weekly."]
    assert m.invoke(q("again")).content == "second"
    assert [c[0].content for c in m.calls] == ["When?", "again"]


def test_scripted_structured_output_accepts_dict_json_and_instances() -> None:
    m = ScriptedChatModel([{"relevant": True, "reason": "a"}, '{"relevant": false, "reason": "b"}',
                           Grade(relevant=True, reason="c"), "not json"])  # fmt: skip
    grader = m.with_structured_output(Grade)
    assert grader.invoke(q("1")) == Grade(relevant=True, reason="a")
    assert asyncio.run(grader.ainvoke(q("2"))) == Grade(relevant=False, reason="b")
    assert grader.invoke(q("3")).reason == "c"
    from langchain_core.exceptions import OutputParserException

    with pytest.raises(OutputParserException):
        grader.invoke(q("4"))


def test_scripted_model_fails_the_next_calls_then_recovers() -> None:
    m = ScriptedChatModel(lambda msgs: f"re: {msgs[-1].content}", error=TimeoutError("slow"), error_times=2)
    for _ in range(2):
        with pytest.raises(TimeoutError):
            m.invoke(q("x"))
    assert m.invoke(q("x")).content == "re: x"


def test_no_llm_configured_is_unavailable_with_an_actionable_message() -> None:
    models = ChatModels(no_llm_settings(), breakers=Breakers())
    assert not models.configured("generator") and not models.available("generator")
    assert models.model_name("grader") == ""
    with pytest.raises(LLMUnavailable, match="No LLM configured: set LLM_MODEL") as err:
        asyncio.run(models.generate("generator", q("hi")))
    assert err.value.kind == "not_configured"


def test_role_settings_and_overrides_pick_the_model() -> None:
    models = ChatModels(no_llm_settings(llm_model="base", llm_model_grader="judge"), breakers=Breakers())
    assert models.model_name("generator") == "base"
    assert models.model_name("grader") == "judge"
    assert models.model_name("generator", override="other") == "other"
    assert models.get("grader").model == "judge"  # type: ignore[attr-defined]


def test_injected_model_answers_without_llm_model_setting() -> None:
    scripted = ScriptedChatModel(["Hello."])
    models = ChatModels(no_llm_settings(), breakers=Breakers(), models={"generator": scripted})
    assert models.available("generator") and not models.configured("router")
    assert models.model_name("generator") == "scripted"
    out = asyncio.run(models.generate("generator", q("hi")))
    assert isinstance(out, AIMessage) and out.content == "Hello."


def test_errors_from_the_model_map_to_llm_error_or_unavailable_and_open_the_breaker() -> None:
    scripted = ScriptedChatModel(["never"] * 2, error=ConnectionError("refused"), error_times=1)
    grader = ScriptedChatModel(["{bad json"] * 10)
    breakers = Breakers(fail_max=3)
    models = ChatModels(no_llm_settings(), breakers=breakers, models={"generator": scripted, "grader": grader})

    with pytest.raises(LLMUnavailable) as down:
        asyncio.run(models.generate("generator", q("x")))
    assert down.value.kind == "connection"
    for _ in range(2):
        with pytest.raises(LLMError) as bad:
            asyncio.run(models.structured("grader", Grade, q("x")))
        assert bad.value.kind == "invalid_output"
    assert breakers.states()["llm"] == "open"
    calls_before = len(scripted.calls)
    with pytest.raises(LLMUnavailable, match="circuit breaker open") as fast:
        asyncio.run(models.generate("generator", q("x")))
    assert fast.value.kind == "circuit_open"
    assert len(scripted.calls) == calls_before, "an open breaker must not call the model"
    assert not models.available("generator")


class S(TypedDict):
    question: str
    answer: str
    grade: str


def test_in_a_graph_answer_tokens_stream_but_grader_json_does_not() -> None:
    from langgraph.graph import END, START, StateGraph

    gen = ScriptedChatModel(["Water it weekly."])
    judge = ScriptedChatModel([{"relevant": True, "reason": "matches"}])
    models = ChatModels(no_llm_settings(), breakers=Breakers(), models={"generator": gen, "grader": judge})

    async def grade(state: S, config: RunnableConfig) -> dict[str, str]:
        verdict = await models.structured("grader", Grade, q(state["question"]), config=config)
        return {"grade": verdict.reason}

    async def answer(state: S, config: RunnableConfig) -> dict[str, str]:
        msg = await models.generate("generator", q(state["question"]), config=config)
        return {"answer": str(msg.content)}

    builder = StateGraph(S)
    builder.add_node(grade)
    builder.add_node(answer)
    builder.add_edge(START, "grade")
    builder.add_edge("grade", "answer")
    builder.add_edge("answer", END)
    graph = builder.compile()

    async def run() -> list[tuple[str, str]]:
        out = []
        start: S = {"question": "When?", "answer": "", "grade": ""}
        async for part in graph.astream(start, stream_mode="messages"):
            chunk, meta = cast(tuple[BaseMessage, dict[str, Any]], part)
            out.append((meta["langgraph_node"], str(chunk.content)))
        return out

    tokens = asyncio.run(run())
    assert [t for node, t in tokens if node == "answer" and t] == ["Water ", "it ", "weekly."]
    assert all(node != "grade" for node, _ in tokens), tokens
