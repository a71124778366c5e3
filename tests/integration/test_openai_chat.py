"""Chat through the real langchain-openai client (LLM_PROVIDER=openai) against an OpenAI-protocol server.

What a user gets by pointing the roles at llama.cpp, vLLM or LM Studio with settings alone:
answers, streamed tokens, structured verdicts through ``response_format``, the API key sent,
every failure mapped to LLMError / LLMUnavailable with what to do, the breaker, and one full
Q&A run of the graph.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessageChunk, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from components.factory import Components
from components.models.chat import ChatModels
from components.resilience.breaker import Breakers
from components.resilience.errors import LLMError, LLMUnavailable
from components.settings import Settings
from graph.context import Context
from graph.rag import build_rag_graph
from tests.fakes.openai_server import Behaviour, openai_server
from tests.integration.helpers import sample_store

pytest.importorskip("langchain_openai", reason="the [openai] extra is not installed")
pytestmark = pytest.mark.integration

KEY = "sk-local-test"


class Grade(BaseModel):
    relevant: bool = Field(description="Whether the context answers the question.")
    reason: str = Field(description="One sentence.")


def openai_settings(url: str, **kw: Any) -> Settings:
    values: dict[str, Any] = {"llm_provider": "openai", "llm_base_url": url, "llm_api_key": KEY}
    values.setdefault("llm_model", "fake-chat")
    return Settings(_env_file=None, **{**values, **kw})  # type: ignore[call-arg]


def q(text: str) -> list[BaseMessage]:
    return [SystemMessage("Answer briefly."), HumanMessage(text)]


@pytest.fixture
def server() -> Iterator[tuple[str, Behaviour]]:
    with openai_server(Behaviour(api_key=KEY)) as s:
        yield s


def test_answer_through_the_openai_provider_sends_the_model_and_the_key(server: tuple[str, Behaviour]) -> None:
    url, b = server
    b.chat_handler = lambda p: "Water the monstera once a week."
    models = ChatModels(openai_settings(url), breakers=Breakers())
    out = asyncio.run(models.generate("generator", q("When should I water the monstera?")))
    assert out.content == "Water the monstera once a week."
    path, sent, headers = b.requests[-1]
    assert path == "/v1/chat/completions" and sent["model"] == "fake-chat"
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert headers["authorization"] == f"Bearer {KEY}"
    # a second event loop (the CLI runs one per command) must not trip over pooled connections
    assert asyncio.run(models.generate("generator", q("again"))).content == "Water the monstera once a week."


def test_a_provider_prefix_sends_one_role_to_the_server_while_the_rest_stay_on_ollama(
    server: tuple[str, Behaviour],
) -> None:
    url, b = server
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, llm_model="qwen2.5:7b-instruct", llm_model_generator="openai:fake-chat",
        llm_base_url=url, llm_api_key=KEY,
    )  # fmt: skip
    models = ChatModels(settings, breakers=Breakers())
    assert models.provider("generator").name == "openai"  # type: ignore[union-attr]
    assert models.provider("grader").name == "ollama"  # type: ignore[union-attr]
    assert asyncio.run(models.generate("generator", q("hi"))).content == "echo: hi"
    assert b.chat_requests[-1]["model"] == "fake-chat"


def test_tokens_stream_in_order(server: tuple[str, Behaviour]) -> None:
    url, b = server
    b.chat_handler = lambda p: "one two three four five"
    model = ChatModels(openai_settings(url), breakers=Breakers()).get("generator")

    async def collect() -> list[str]:
        return [str(c.content) async for c in model.astream(q("count"))]

    assert [c for c in asyncio.run(collect()) if c] == ["one ", "two ", "three ", "four ", "five"]
    assert b.chat_requests[-1]["stream"] is True


def test_structured_output_sends_the_json_schema_as_response_format(server: tuple[str, Behaviour]) -> None:
    url, b = server

    def grade(payload: dict[str, Any]) -> dict[str, Any]:
        assert payload["response_format"]["type"] == "json_schema"
        return {"relevant": True, "reason": "The note names the interval."}

    b.chat_handler = grade
    models = ChatModels(openai_settings(url), breakers=Breakers())
    verdict = asyncio.run(models.structured("grader", Grade, q("Is this relevant?")))
    assert verdict == Grade(relevant=True, reason="The note names the interval.")
    sent = b.chat_requests[-1]
    schema = sent["response_format"]["json_schema"]["schema"]
    assert set(schema["required"]) == {"relevant", "reason"}
    assert sent["temperature"] == 0  # graders are deterministic


def test_output_that_does_not_fit_the_schema_is_a_retryable_llm_error(server: tuple[str, Behaviour]) -> None:
    url, b = server
    b.chat_handler = lambda p: {"relevant": "maybe"}
    models = ChatModels(openai_settings(url), breakers=Breakers())
    with pytest.raises(LLMError) as err:
        asyncio.run(models.structured("grader", Grade, q("x")))
    assert err.value.kind == "invalid_output"


def test_server_errors_are_retryable_and_open_the_breaker(server: tuple[str, Behaviour]) -> None:
    url, b = server
    breakers = Breakers(fail_max=2, reset=0.3)
    models = ChatModels(openai_settings(url), breakers=breakers)
    b.fail_next = 2
    for _ in range(2):
        with pytest.raises(LLMError, match="HTTP 500") as err:
            asyncio.run(models.generate("generator", q("x")))
        assert err.value.kind == "server_error"
    assert len(b.chat_requests) == 2, "the SDK's own retries are off: the graph's retry policy decides"
    with pytest.raises(LLMUnavailable, match="circuit breaker open") as fast:
        asyncio.run(models.generate("generator", q("x")))
    assert fast.value.kind == "circuit_open" and len(b.chat_requests) == 2
    time.sleep(0.35)
    assert asyncio.run(models.generate("generator", q("back?"))).content == "echo: back?"
    assert breakers.states()["llm"] == "closed"


def test_a_model_the_server_does_not_serve_says_what_to_set(server: tuple[str, Behaviour]) -> None:
    url, _ = server
    models = ChatModels(openai_settings(url, llm_model="qwen-not-loaded"), breakers=Breakers())
    with pytest.raises(LLMUnavailable, match=r"does not have the model qwen-not-loaded: set LLM_MODEL") as err:
        asyncio.run(models.generate("generator", q("x")))
    assert err.value.kind == "model_missing"


def test_a_wrong_key_names_the_setting_to_fix(server: tuple[str, Behaviour]) -> None:
    url, _ = server
    models = ChatModels(openai_settings(url, llm_api_key="wrong"), breakers=Breakers())
    with pytest.raises(LLMUnavailable, match=r"HTTP 401.*set LLM_API_KEY") as err:
        asyncio.run(models.generate("generator", q("x")))
    assert err.value.kind == "not_configured"


def test_no_key_at_all_says_to_set_one() -> None:
    models = ChatModels(openai_settings("http://127.0.0.1:9/v1", llm_api_key=None), breakers=Breakers())
    with pytest.raises(LLMUnavailable, match=r"could not be set up.*Set LLM_API_KEY") as err:
        asyncio.run(models.generate("generator", q("x")))
    assert err.value.kind == "not_configured"


def test_server_down_is_unavailable_at_once() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    models = ChatModels(openai_settings(url), breakers=Breakers())
    started = time.perf_counter()
    with pytest.raises(LLMUnavailable, match=f"Cannot reach the OpenAI-compatible server at {url}") as err:
        asyncio.run(models.generate("generator", q("x")))
    assert err.value.kind == "connection" and "LLM_BASE_URL" in str(err.value)
    assert time.perf_counter() - started < 2.0


def test_slow_server_is_cut_at_the_llm_timeout(server: tuple[str, Behaviour]) -> None:
    url, b = server
    b.chat_delay = 3.0
    models = ChatModels(openai_settings(url, llm_timeout=0.5), breakers=Breakers())
    started = time.perf_counter()
    with pytest.raises(LLMError, match=r"did not answer within 0\.5 s") as err:
        asyncio.run(models.generate("generator", q("x")))
    assert err.value.kind == "timeout"
    assert time.perf_counter() - started < 2.5


ANSWER = "Water the monstera only when the top 5 cm of soil is dry [1]."


def reply(payload: dict[str, Any]) -> str | dict[str, Any]:
    """A well-behaved model: each structured call gets a valid object, plain calls the answer."""
    fmt = payload.get("response_format")
    if not isinstance(fmt, dict):
        return ANSWER
    title = fmt["json_schema"]["name"]
    last = [m for m in payload["messages"] if m["role"] == "user"][-1]["content"]
    verdicts: dict[str, dict[str, Any]] = {
        "ExtractedFilters": {"tags": [], "vaults": [], "created_from": None, "created_to": None},
        "RouteDecision": {"route": "vector_search", "reason": "about the user's notes"},
        "Rewrite": {"question": last, "hypothetical_answer": "Monstera plants need water when the soil is dry."},
        "ContextGrade": {"relevant": [1], "reason": "passage 1 is about watering"},
        "HallucinationGrade": {"grounded": True, "unsupported": []},
        "AnswerGrade": {"useful": True, "reason": "answers it"},
    }
    return verdicts[title]


# langchain-openai dumps the SDK's `parsed` field of structured replies with a pydantic warning
# (upstream langchain issue 35538); the reply itself is parsed correctly
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")
def test_the_qa_graph_answers_through_the_openai_provider_and_streams_the_answer(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    base, _ = sample_store(tmp_path_factory.mktemp("qa-openai"))
    try:
        with openai_server(Behaviour(api_key=KEY, chat_handler=reply)) as (url, b):
            s = openai_settings(url, llm_timeout=5.0, qdrant_path=base.settings.qdrant_path)
            c = Components(
                s.model_copy(update={"data_dir": base.settings.data_dir}), embedder=base.embedder, store_of=base
            )
            graph = build_rag_graph(c)

            async def go() -> tuple[dict[str, Any], list[str]]:
                tokens: list[str] = []
                final: dict[str, Any] = {}
                async for mode, part in graph.astream(
                    {"question": "When should I water the monstera?"},
                    context=Context(cache=False),
                    stream_mode=["messages", "values"],
                ):
                    if mode == "messages":
                        msg, meta = part
                        if isinstance(msg, AIMessageChunk) and msg.content:
                            assert meta["langgraph_node"] == "generate_answer", "only answer tokens stream"
                            tokens.append(str(msg.content))
                    else:
                        final = part
                return final, tokens

            out, tokens = asyncio.run(go())
        assert out["path"] == "llm" and out["answer"] == ANSWER and out["sources"]
        assert "".join(tokens) == ANSWER
        names = [r["response_format"]["json_schema"]["name"] for r in b.chat_requests if "response_format" in r]
        assert names[:2] == ["ExtractedFilters", "RouteDecision"] and "AnswerGrade" in names
    finally:
        base.close()
