"""Chat through the real ChatOllama client against an Ollama-protocol server: answers, streams, verdicts, failures."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from components.models.chat import ChatModels
from components.resilience.breaker import Breakers
from components.resilience.errors import LLMError, LLMUnavailable
from components.settings import Settings
from tests.fakes.ollama_server import Behaviour, ollama_server

pytestmark = pytest.mark.integration


class Grade(BaseModel):
    relevant: bool = Field(description="Whether the context answers the question.")
    reason: str = Field(description="One sentence.")


def chat_settings(url: str, **kw: Any) -> Settings:
    return Settings(_env_file=None, ollama_base_url=url, llm_model="fake-chat", **kw)  # type: ignore[call-arg]


def q(text: str) -> list[BaseMessage]:
    return [SystemMessage("Answer briefly."), HumanMessage(text)]


@pytest.fixture
def server() -> Iterator[tuple[str, Behaviour]]:
    with ollama_server() as (url, behaviour):
        yield url, behaviour


def test_answer_comes_back_as_one_message(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    behaviour.chat_handler = lambda p: "Water the monstera once a week."
    models = ChatModels(chat_settings(url), breakers=Breakers())
    out = asyncio.run(models.generate("generator", q("When should I water the monstera?")))
    assert out.content == "Water the monstera once a week."
    sent = behaviour.chat_requests[-1]
    assert sent["model"] == "fake-chat"
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    # a second event loop (the CLI runs one per command) must not trip over pooled connections
    assert asyncio.run(models.generate("generator", q("again"))).content == "Water the monstera once a week."


def test_tokens_stream_in_order(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    behaviour.chat_handler = lambda p: "one two three four five"
    behaviour.token_delay = 0.02
    model = ChatModels(chat_settings(url), breakers=Breakers()).get("generator")

    async def collect() -> list[tuple[float, str]]:
        return [(time.perf_counter(), str(c.content)) async for c in model.astream(q("count"))]

    chunks = [(t, c) for t, c in asyncio.run(collect()) if c]
    assert [c for _, c in chunks] == ["one ", "two ", "three ", "four ", "five"]
    assert chunks[-1][0] > chunks[0][0], "tokens arrive one by one, not all at the end"


def test_structured_output_sends_the_schema_as_format_and_parses_it(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server

    def grade(payload: dict[str, Any]) -> dict[str, Any]:
        assert isinstance(payload.get("format"), dict), "the JSON schema must travel in `format`"
        return {"relevant": True, "reason": "The note names the interval."}

    behaviour.chat_handler = grade
    models = ChatModels(chat_settings(url, llm_model_grader="fake-chat"), breakers=Breakers())
    verdict = asyncio.run(models.structured("grader", Grade, q("Is this relevant?")))
    assert verdict == Grade(relevant=True, reason="The note names the interval.")
    fmt = behaviour.chat_requests[-1]["format"]
    assert fmt["required"] == ["relevant", "reason"]
    assert fmt["properties"]["relevant"]["type"] == "boolean"
    assert behaviour.chat_requests[-1]["options"]["temperature"] == 0  # graders are deterministic


def test_output_that_does_not_fit_the_schema_is_a_retryable_llm_error(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    behaviour.chat_handler = lambda p: json.dumps({"relevant": "maybe"})
    models = ChatModels(chat_settings(url), breakers=Breakers())
    with pytest.raises(LLMError) as err:
        asyncio.run(models.structured("grader", Grade, q("x")))
    assert err.value.kind == "invalid_output"


def test_slow_server_is_cut_at_the_llm_timeout(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    behaviour.chat_delay = 3.0
    models = ChatModels(chat_settings(url, llm_timeout=0.5), breakers=Breakers())
    started = time.perf_counter()
    with pytest.raises(LLMError, match=r"did not answer within 0\.5 s") as err:
        asyncio.run(models.generate("generator", q("x")))
    assert err.value.kind == "timeout"
    assert time.perf_counter() - started < 2.5


def test_server_errors_open_the_breaker_then_a_trial_closes_it(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    # reset: long enough that a loaded machine does not reach the half-open trial between the
    # fifth failure and the call that must fail fast
    breakers = Breakers(fail_max=5, reset=1.0)
    models = ChatModels(chat_settings(url), breakers=breakers)
    behaviour.fail_next = 5
    for _ in range(5):
        with pytest.raises(LLMError) as err:
            asyncio.run(models.generate("generator", q("x")))
        assert err.value.kind == "server_error" and "HTTP 500" in str(err.value)
    assert breakers.states()["llm"] == "open"

    reached = len(behaviour.chat_requests)
    started = time.perf_counter()
    with pytest.raises(LLMUnavailable, match="llm is unavailable: circuit breaker open after 5 failures"):
        asyncio.run(models.generate("generator", q("x")))
    # fail fast: no request reaches the server (below) and the call does not wait for the reset;
    # the bound sits under the 1 s reset, with room for a busy machine's scheduling
    assert time.perf_counter() - started < 0.9
    assert len(behaviour.chat_requests) == reached, "calls fail fast without reaching the server"
    assert not models.available("generator")

    time.sleep(1.05)
    assert models.available("generator")
    assert asyncio.run(models.generate("generator", q("back?"))).content == "echo: back?"
    assert breakers.states()["llm"] == "closed"


def test_server_down_is_unavailable_at_once() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    models = ChatModels(chat_settings(f"http://127.0.0.1:{port}"), breakers=Breakers())
    started = time.perf_counter()
    with pytest.raises(LLMUnavailable, match=f"Cannot reach Ollama at http://127.0.0.1:{port}") as err:
        asyncio.run(models.generate("generator", q("x")))
    assert err.value.kind == "connection"
    assert time.perf_counter() - started < 2.0
    with pytest.raises(LLMUnavailable, match="Cannot reach Ollama"):
        asyncio.run(models.structured("grader", Grade, q("x")))


def test_missing_model_says_to_pull_it(server: tuple[str, Behaviour]) -> None:
    url, _ = server
    models = ChatModels(chat_settings(url, llm_model_generator="qwen-not-pulled"), breakers=Breakers())
    with pytest.raises(LLMUnavailable, match="ollama pull qwen-not-pulled") as err:
        asyncio.run(models.generate("generator", q("x")))
    assert err.value.kind == "model_missing"


def test_not_configured_is_unavailable_with_an_actionable_message(server: tuple[str, Behaviour]) -> None:
    url, behaviour = server
    settings = Settings(_env_file=None, ollama_base_url=url)  # type: ignore[call-arg]
    models = ChatModels(settings, breakers=Breakers())
    with pytest.raises(LLMUnavailable, match=r"No LLM configured: set LLM_MODEL \(an Ollama model"):
        asyncio.run(models.generate("generator", q("x")))
    assert behaviour.chat_requests == []


def test_server_that_dies_after_answering_is_unavailable() -> None:
    """Pooled keep-alive connections to a server that went away end in LLMUnavailable, not a hang."""
    stopped = threading.Event()
    answered = threading.Event()
    outcome: list[BaseException] = []

    async def before_and_after(models: ChatModels) -> None:
        assert (await models.generate("generator", q("hi"))).content == "echo: hi"
        answered.set()
        await asyncio.to_thread(stopped.wait, 10)
        await models.generate("generator", q("still there?"))

    def client(models: ChatModels) -> None:
        try:
            asyncio.run(before_and_after(models))
        except BaseException as exc:
            outcome.append(exc)

    with ollama_server() as (url, _):
        models = ChatModels(chat_settings(url), breakers=Breakers())
        worker = threading.Thread(target=client, args=(models,))
        worker.start()  # one event loop across the server's death, as in `langgraph dev`
        assert answered.wait(10)
    stopped.set()
    worker.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], LLMUnavailable), outcome
    assert outcome[0].kind == "connection"
