"""The chat provider registry: which provider serves a role, how its model is built, what a missing package says."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.language_models import BaseChatModel
from langchain_ollama import ChatOllama

from components.models import providers
from components.models.chat import ChatModels
from components.resilience.breaker import Breakers
from components.resilience.errors import LLMUnavailable
from components.settings import Settings

REPO = Path(__file__).resolve().parents[4]


def settings(**kw: Any) -> Settings:
    return Settings(_env_file=None, **kw)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("spec", "default", "provider", "model"),
    [
        ("qwen2.5:7b-instruct", "ollama", "ollama", "qwen2.5:7b-instruct"),  # an Ollama tag is no provider
        ("openai:qwen2.5", "ollama", "openai", "qwen2.5"),
        ("ollama:qwen2.5:7b", "openai", "ollama", "qwen2.5:7b"),
        ("qwen2.5", "openai", "openai", "qwen2.5"),
        ("openai:", "ollama", "ollama", "openai:"),  # a bare prefix names no model
    ],
)
def test_a_model_string_names_its_provider_only_with_a_registered_prefix(
    spec: str, default: str, provider: str, model: str
) -> None:
    p, name = providers.resolve(spec, default)
    assert (p.name, name) == (provider, model)


def test_an_unknown_provider_names_the_known_ones() -> None:
    with pytest.raises(LLMUnavailable, match=r"Unknown LLM provider 'anthropc'.*ollama, openai") as err:
        providers.resolve("qwen2.5", "anthropc")
    assert err.value.kind == "not_configured"


def test_ollama_stays_the_default_with_its_url_timeout_and_deterministic_graders() -> None:
    models = ChatModels(
        settings(llm_model="qwen2.5:7b", ollama_base_url="http://gpu:11434", llm_timeout=20), breakers=Breakers()
    )
    grader = models.get("grader")
    assert isinstance(grader, ChatOllama)
    assert (grader.model, grader.base_url, grader.temperature) == ("qwen2.5:7b", "http://gpu:11434", 0.0)
    timeout = (grader.client_kwargs or {})["timeout"]
    assert isinstance(timeout, httpx.Timeout) and (timeout.read, timeout.connect) == (20, providers.CONNECT_TIMEOUT)
    assert models.get("generator").temperature is None  # type: ignore[attr-defined]
    assert models.provider("generator") is providers.PROVIDERS["ollama"]


def test_llm_provider_openai_builds_the_openai_client_from_the_settings() -> None:
    pytest.importorskip("langchain_openai")
    from langchain_openai import ChatOpenAI

    s = settings(llm_provider="openai", llm_model="qwen2.5", llm_base_url="http://localhost:8080/v1", llm_api_key="k")
    model = ChatModels(s, breakers=Breakers()).get("router")
    assert isinstance(model, ChatOpenAI)
    assert model.model_name == "qwen2.5" and model.openai_api_base == "http://localhost:8080/v1"
    assert model.openai_api_key is not None and model.openai_api_key.get_secret_value() == "k"
    assert model.max_retries == 0, "the graph's retry policy and the breaker decide, not the SDK"
    assert model.temperature == 0.0


def test_a_missing_provider_package_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_openai", None)  # as if the [openai] extra were not installed
    models = ChatModels(settings(llm_model="openai:qwen2.5"), breakers=Breakers())
    with pytest.raises(
        LLMUnavailable, match=r"needs the langchain-openai package.*pip install 'agentic-rag\[openai\]'"
    ) as err:
        models.get("generator")
    assert err.value.kind == "not_configured"


def test_every_provider_package_is_a_dependency_or_in_its_extra() -> None:
    """Adding a provider is one registry entry plus, for an optional package, the extra its message names."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["name"] == providers.PROJECT
    for p in providers.PROVIDERS.values():
        listed = project["optional-dependencies"][p.extra] if p.extra else project["dependencies"]
        assert any(dep.startswith(p.package) for dep in listed), (p.name, p.extra)


def test_an_injected_model_has_no_provider_and_keeps_langchains_default_structured_method() -> None:
    from tests.fakes.scripted_llm import ScriptedChatModel

    scripted: BaseChatModel = ScriptedChatModel(["hi"])
    models = ChatModels(settings(llm_model="qwen2.5"), breakers=Breakers(), models={"generator": scripted})
    assert models.provider("generator") is None and models.provider("grader") is not None
