"""Chat model providers: the one place that says how each provider's chat model is built.

Every role's model is built by LangChain's ``init_chat_model`` (package ``langchain``), so any
provider LangChain integrates can serve the roles. A provider here is one :class:`ChatProvider`
entry in :data:`PROVIDERS`: which integration package it needs, which settings point it at its
server, and what to tell the user when that server fails. Adding a provider is adding one
entry (and, when its integration package is optional, an extra in ``pyproject.toml``).

Which provider serves a role: ``LLM_PROVIDER`` (default ``ollama``), unless the model string
names one, as in ``openai:qwen2.5``. The prefix counts only when it is a provider listed here,
so Ollama names such as ``qwen2.5:7b-instruct`` keep their colon.

An OpenAI-compatible server (llama.cpp's ``llama-server``, vLLM, LM Studio) needs no code::

    pip install 'agentic-rag[openai]'
    LLM_PROVIDER=openai LLM_BASE_URL=http://localhost:8080/v1 LLM_API_KEY=any LLM_MODEL=qwen2.5
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from components.resilience.errors import LLMUnavailable
from components.settings import Settings

if TYPE_CHECKING:  # the chat model classes load when a model is built, not when a command starts
    from langchain_core.language_models import BaseChatModel

PROJECT = "agentic-rag"
"""The distribution name in ``pyproject.toml``, for the ``pip install`` lines in error messages."""

CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection: a reachable server accepts at once; waiting the full LLM timeout
on a dead host would only delay the fallback."""

Options = Callable[[Settings, httpx.Timeout], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ChatProvider:
    """How one provider's chat models are built and how its failures are explained.

    ``name`` is the ``LLM_PROVIDER`` value, the ``name:`` prefix of a model string and
    ``init_chat_model``'s ``model_provider``. ``options(settings, timeout)`` gives the keyword
    arguments of its LangChain chat model. The hints finish the error messages users see.
    """

    name: str
    label: str
    """How messages name the server: "Ollama", "the OpenAI-compatible server"."""
    package: str
    """The pip package of the LangChain integration."""
    module: str
    """Its import name, checked before building so a missing package gets an actionable message."""
    extra: str
    """The extra of this project that installs the package; empty when it is a core dependency."""
    url: Callable[[Settings], str]
    """The server's base URL as the settings give it, for messages."""
    options: Options
    unreachable_hint: str
    """What to check when no connection can be made."""
    model_hint: str
    """What to do when the server does not have the model; ``{model}`` is replaced."""
    auth_hint: str
    """What to do when the server refuses the credentials (HTTP 401/403)."""
    setup_hint: str
    """What to set when the chat model cannot even be built (missing key, bad URL)."""
    structured_method: str | None = None
    """``with_structured_output`` method; None for LangChain's default."""

    def install_line(self) -> str:
        target = f"{PROJECT}[{self.extra}]" if self.extra else self.package
        return f"pip install '{target}'"


def _ollama_options(s: Settings, timeout: httpx.Timeout) -> dict[str, Any]:
    # the httpx timeout bounds the wait for each piece of the answer (first token, next token),
    # so a stalled server is cut at LLM_TIMEOUT while a long answer that keeps streaming is not
    return {"base_url": s.ollama_base_url, "client_kwargs": {"timeout": timeout}}


def _openai_options(s: Settings, timeout: httpx.Timeout) -> dict[str, Any]:
    # the SDK retries twice by default; the graph's retry policy (LLM_RETRIES) and the breaker
    # decide instead, so a server that is down reaches the fallback after one timeout, not three.
    # An httpx.Timeout is unhashable, so the SDK builds this model's own HTTP client instead of
    # sharing a cached one across event loops (ChatModels caches models per loop).
    options: dict[str, Any] = {"timeout": timeout, "max_retries": 0}
    if s.llm_base_url:
        options["base_url"] = s.llm_base_url
    if s.llm_api_key is not None:
        options["api_key"] = s.llm_api_key
    return options


PROVIDERS: dict[str, ChatProvider] = {
    p.name: p
    for p in (
        ChatProvider(
            name="ollama",
            label="Ollama",
            package="langchain-ollama",
            module="langchain_ollama",
            extra="",
            url=lambda s: s.ollama_base_url,
            options=_ollama_options,
            unreachable_hint="Check that the server runs (`ollama serve`) and OLLAMA_BASE_URL is right",
            model_hint="run `ollama pull {model}` or set LLM_MODEL to a model it has",
            auth_hint="check the credentials of the proxy in front of Ollama",
            setup_hint="Check OLLAMA_BASE_URL and LLM_MODEL.",
            # Ollama constrains decoding to the JSON schema passed as `format`
            structured_method="json_schema",
        ),
        ChatProvider(
            name="openai",
            label="the OpenAI-compatible server",
            package="langchain-openai",
            module="langchain_openai",
            extra="openai",
            url=lambda s: s.llm_base_url or "the OpenAI API (OPENAI_BASE_URL)",
            options=_openai_options,
            unreachable_hint="Check that the server runs and LLM_BASE_URL is right (e.g. http://localhost:8080/v1)",
            model_hint="set LLM_MODEL to a model it serves (GET <LLM_BASE_URL>/models lists them), not {model}",
            auth_hint="set LLM_API_KEY to a key it accepts",
            setup_hint="Set LLM_API_KEY (any value for a local server that checks no key) and LLM_BASE_URL "
            "(e.g. http://localhost:8080/v1 for llama.cpp, http://localhost:8000/v1 for vLLM).",
            # response_format json_schema: llama.cpp, vLLM and LM Studio constrain decoding to it
            structured_method="json_schema",
        ),
    )
}
"""Every provider a role can use, by name. Adding one is adding an entry."""


def provider(name: str) -> ChatProvider:
    """The provider called ``name``; :class:`LLMUnavailable` (not configured) naming the known ones otherwise."""
    try:
        return PROVIDERS[name]
    except KeyError:
        raise LLMUnavailable(
            f"Unknown LLM provider {name!r} (LLM_PROVIDER or a 'provider:model' name): use one of "
            f"{', '.join(sorted(PROVIDERS))}.",
            kind="not_configured",
        ) from None


def resolve(spec: str, default: str) -> tuple[ChatProvider, str]:
    """The provider and model of a model string: ``openai:qwen2.5`` names its provider, other names use ``default``."""
    head, sep, rest = spec.partition(":")
    if sep and rest and head in PROVIDERS:
        return PROVIDERS[head], rest
    return provider(default), spec


def build(
    p: ChatProvider,
    model: str,
    settings: Settings,
    *,
    temperature: float | None = None,
    timeout: float | None = None,
) -> BaseChatModel:
    """The chat model ``model`` of provider ``p``, through ``init_chat_model``, with ``timeout``
    seconds per call (default LLM_TIMEOUT).

    Raises :class:`LLMUnavailable` (``not_configured``) with what to do when the provider's
    package is not installed or the model cannot be set up (a missing API key, for one).
    """
    if importlib.util.find_spec(p.module) is None:
        raise LLMUnavailable(
            f"The {p.name} chat provider (LLM_PROVIDER={p.name} or a model named '{p.name}:...') needs "
            f"the {p.package} package, which is not installed. Install it with: {p.install_line()}",
            kind="not_configured",
        )
    from langchain.chat_models import init_chat_model

    seconds = timeout if timeout is not None else settings.llm_timeout
    options = p.options(settings, httpx.Timeout(seconds, connect=min(CONNECT_TIMEOUT, seconds)))
    if temperature is not None:
        options["temperature"] = temperature
    try:
        return init_chat_model(model, model_provider=p.name, **options)
    except ImportError as e:
        raise LLMUnavailable(
            f"The {p.name} chat provider could not be loaded ({e}). Reinstall it with: {p.install_line()}",
            kind="not_configured",
        ) from e
    except Exception as e:  # the integration validates its options here: a missing key, a malformed URL
        raise LLMUnavailable(
            f"The {p.name} chat model {model} could not be set up: {str(e).splitlines()[0][:300]} {p.setup_hint}",
            kind="not_configured",
        ) from e


__all__ = ["CONNECT_TIMEOUT", "PROVIDERS", "ChatProvider", "build", "provider", "resolve"]
