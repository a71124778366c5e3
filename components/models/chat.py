"""Chat models per role (router, rewriter, grader, generator), called through the "llm" circuit breaker.

The graph never talks to an LLM server directly: nodes ask :class:`ChatModels` for a plain answer
(:meth:`ChatModels.generate`, streamed token by token to LangGraph's ``stream_mode="messages"``)
or a typed verdict (:meth:`ChatModels.structured`, never streamed as answer tokens). Every
failure is turned into one of two errors so that nodes need only two rules:

* :class:`~components.resilience.errors.LLMUnavailable`: no LLM can answer now (not configured, server
  unreachable, model not pulled, breaker open). Retrying is pointless; take the non-LLM path.
* :class:`~components.resilience.errors.LLMError`: this call failed (HTTP 5xx, read timeout, output that does
  not fit the schema). A retry may succeed.

Without injection the models come from the provider registry (``components/models/providers.py``):
Ollama by default, or any provider there (``LLM_PROVIDER``, or a model named ``openai:qwen2.5``),
built by LangChain's ``init_chat_model``. Any LangChain chat model can also be injected per role
(``models=``), which is how tests script the LLM and how Python users plug in a model in code.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Literal, TypeVar, get_args

import httpx
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig, ensure_config
from pydantic import BaseModel, ValidationError

from components.models import providers
from components.models.providers import ChatProvider
from components.resilience.breaker import Breakers
from components.resilience.errors import CircuitOpen, LLMError, LLMUnavailable
from components.resilience.network import http_status, network_failure
from components.resilience.run_budget import RunBudget
from components.settings import Settings

logger = logging.getLogger(__name__)

#: a failed connection that took this long (seconds) stops the run's other LLM calls: each would wait as long
STALL_AFTER_S = 1.0

Role = Literal["router", "rewriter", "grader", "generator"]
ROLES: tuple[Role, ...] = get_args(Role)

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")

Screen = Callable[[str], "str | None"]
"""One streamed sentence → the text clients may see, or None to show nothing more (``screened``)."""

TAG_NOSTREAM = "nostream"
"""The run tag that keeps a model's tokens out of LangGraph's ``stream_mode="messages"``.

It is LangGraph's ``langgraph.constants.TAG_NOSTREAM``, written out because building blocks do
not import LangGraph (ARCHITECTURE: components are framework-free); a unit test keeps the two equal."""

_DETERMINISTIC_ROLES: frozenset[Role] = frozenset({"router", "grader"})
"""Roles whose verdicts steer the graph: temperature 0 so the same question takes the same path."""


class ChatModels:
    """Chat model per role, built lazily, cached, and called through the "llm" breaker.

    ``models`` maps a role (or a model name) to any LangChain chat model; an injected model is
    used even when ``LLM_MODEL`` is empty. Roles without an injected model use the role's model
    from the settings (``LLM_MODEL_<ROLE>``, else ``LLM_MODEL``) of ``LLM_PROVIDER`` (or of the
    provider the name starts with, ``openai:...``); a per-call ``override`` names another model
    the same way (e.g. from the run's Context).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        breakers: Breakers,
        models: Mapping[str, BaseChatModel] | None = None,
    ) -> None:
        self._settings = settings
        self._breakers = breakers
        self._injected: dict[str, BaseChatModel] = dict(models or {})
        # a chat model's async httpx client keeps connections bound to the event loop that opened
        # them; reused from another loop (a second asyncio.run in the CLI or tests) it fails with
        # "Event loop is closed". Models are therefore cached per running loop.
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, str], BaseChatModel]]
        self._by_loop = weakref.WeakKeyDictionary()
        self._no_loop: dict[tuple[str, str], BaseChatModel] = {}
        self._lock = threading.Lock()
        #: per run (request id): the LLM is off for the rest of a run after a timeout or its deadline
        self.budget = RunBudget(settings.llm_deadline)

    # -- which model -----------------------------------------------------------------------

    def _injected_for(self, role: Role, override: str) -> BaseChatModel | None:
        if override:
            return self._injected.get(override)
        return self._injected.get(role) or self._injected.get(self._configured_name(role))

    def _configured_name(self, role: Role) -> str:
        if role not in ROLES:
            raise ValueError(f"unknown LLM role {role!r}; expected one of {', '.join(ROLES)}")
        per_role: str = getattr(self._settings, f"llm_model_{role}")
        return per_role or self._settings.llm_model

    def model_name(self, role: Role, override: str = "") -> str:
        """Name of the model a call for ``role`` would use ("" when none): for logs, status and answers."""
        if override:
            return override
        if (model := self._injected.get(role)) is not None:
            return _label(model)
        return self._configured_name(role)

    def configured(self, role: Role, override: str = "") -> bool:
        """Whether ``role`` has a model at all (injected, overridden or set in the settings)."""
        return bool(self.model_name(role, override))

    def provider(self, role: Role, override: str = "") -> ChatProvider | None:
        """The provider that serves ``role`` (None for an injected model or none configured)."""
        if self._injected_for(role, override) is not None:
            return None
        name = self.model_name(role, override)
        return providers.resolve(name, self._settings.llm_provider)[0] if name else None

    def available(self, role: Role, override: str = "", *, run: str = "") -> bool:
        """Configured, the "llm" breaker lets calls through and the run (its request id) has not
        given up on the LLM: nodes use it to skip straight to fallbacks."""
        return self.configured(role, override) and self._breakers.allow("llm") and not self.budget.why_not(run)

    def get(self, role: Role, override: str = "") -> BaseChatModel:
        """The chat model for ``role``; raises :class:`LLMUnavailable` when none is configured."""
        injected = self._injected_for(role, override)
        if injected is not None:
            return injected
        name = self.model_name(role, override)
        if not name:
            raise LLMUnavailable(
                f"No LLM configured: set LLM_MODEL (an Ollama model, e.g. qwen2.5:7b-instruct, pulled with "
                f"`ollama pull`) or LLM_MODEL_{role.upper()}, and OLLAMA_BASE_URL if Ollama is not on "
                f"localhost:11434 (or LLM_PROVIDER=openai and LLM_BASE_URL for an OpenAI-compatible "
                f"server). Without one, answers are extractive.",
                kind="not_configured",
            )
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        with self._lock:
            cache = self._no_loop if loop is None else self._by_loop.setdefault(loop, {})
            model = cache.get((role, name))
            if model is None:
                provider, bare = providers.resolve(name, self._settings.llm_provider)
                temperature = 0.0 if role in _DETERMINISTIC_ROLES else None
                model = providers.build(
                    provider,
                    bare,
                    self._settings,
                    temperature=temperature,
                    timeout=self._settings.llm_timeout_for(role),
                )
                cache[(role, name)] = model
            return model

    # -- calls -----------------------------------------------------------------------------

    async def generate(
        self,
        role: Role,
        messages: list[BaseMessage],
        *,
        override: str = "",
        config: RunnableConfig | None = None,
        screen: Screen | None = None,
        run: str = "",
    ) -> AIMessage:
        """A plain-text answer. Inside a node, pass the node's ``config`` so its tokens stream to clients.

        With ``screen``, streamed text reaches clients one checked sentence at a time
        (``components.models.screened``); the returned message is still the model's whole reply.
        """
        model: BaseChatModel = self.get(role, override)
        if screen is not None:
            from components.models.screened import ScreenedChatModel  # imports this module's TAG_NOSTREAM

            model = ScreenedChatModel(inner=model, screen=screen)

        async def call() -> AIMessage:
            out = await model.ainvoke(messages, config=config)
            if not isinstance(out, AIMessage):
                raise LLMError(f"the {role} model returned {type(out).__name__}, not a message", kind="invalid_output")
            whole = out.response_metadata.get("screened_whole")
            return out.model_copy(update={"content": whole}) if isinstance(whole, str) else out

        return await self._call(role, override, call, run=run)

    async def structured(
        self,
        role: Role,
        schema: type[T],
        messages: list[BaseMessage],
        *,
        override: str = "",
        config: RunnableConfig | None = None,
        run: str = "",
    ) -> T:
        """A typed verdict (Pydantic ``schema``), decoding constrained to its JSON schema where the provider can.

        The call is tagged ``nostream`` so a grader's JSON never shows up as answer tokens in
        ``stream_mode="messages"``.
        """
        model = self.get(role, override)
        provider = self.provider(role, override)
        if provider is not None and provider.structured_method:
            runnable = model.with_structured_output(schema, method=provider.structured_method)  # type: ignore[arg-type]
        else:
            runnable = model.with_structured_output(schema)
        cfg = ensure_config(config)  # inherits the node's callbacks and tags when config is None
        cfg["tags"] = [*(cfg.get("tags") or []), TAG_NOSTREAM]

        async def call() -> T:
            out = await runnable.ainvoke(messages, config=cfg)
            if isinstance(out, dict):  # models that return the parsed JSON rather than the instance
                out = schema.model_validate(out)
            if not isinstance(out, schema):
                raise LLMError(
                    f"the {role} model returned {type(out).__name__}, not {schema.__name__}", kind="invalid_output"
                )
            return out

        return await self._call(role, override, call, run=run)

    async def guarded(self, role: Role, call: Callable[[], Awaitable[R]], *, override: str = "", run: str = "") -> R:
        """Run a call to ``role``'s model made by another library (NeMo's self-check rail) under the
        same breaker, error mapping, logging and run budget as the project's own calls."""
        return await self._call(role, override, call, run=run)

    async def _call(self, role: Role, override: str, call: Callable[[], Awaitable[R]], *, run: str = "") -> R:
        """Run one model call through the breaker, turning every failure into LLMError or LLMUnavailable.

        ``run`` (the request id) ties the call to its question: once one of the question's calls
        timed out or waited for a connection in vain, or its deadline passed, the others are not made.
        """
        name = self.model_name(role, override)
        why_not = self.budget.why_not(run)
        if why_not:
            raise LLMUnavailable(why_not, kind="run_stalled")
        started = time.perf_counter()
        try:
            # only LLMError / LLMUnavailable count against the server; an error _classify does not
            # know (a bug, bad input) and cancellation (e.g. the node's timeout) give no verdict
            async with self._breakers.guard("llm", is_failure=_is_llm_failure):
                try:
                    return await call()
                except (LLMError, LLMUnavailable):
                    raise
                except Exception as exc:
                    mapped = self._classify(exc, role, override)
                    if mapped is None:
                        raise
                    raise mapped from exc
        except CircuitOpen as exc:
            logger.warning("LLM call skipped: kind=circuit_open role=%s model=%s: %s", role, name, exc)
            raise LLMUnavailable(str(exc), kind="circuit_open") from exc
        except (LLMError, LLMUnavailable) as exc:
            self._log(exc, role, name, started)
            # a call that waited and failed: the next call of this question would wait as long. A
            # refused connection costs nothing to retry, and may concern one role's server only
            waited = time.perf_counter() - started
            if exc.kind == "timeout" or (exc.kind == "connection" and waited >= STALL_AFTER_S):
                self.budget.stall(run, str(exc))
            raise
        except Exception as exc:
            logger.error(
                "LLM call failed: kind=unexpected role=%s model=%s elapsed=%.2fs error=%r",
                role,
                name,
                time.perf_counter() - started,
                exc,
            )
            raise

    def _log(self, exc: LLMError | LLMUnavailable, role: Role, name: str, started: float) -> None:
        logger.warning(
            "LLM call failed: kind=%s role=%s model=%s elapsed=%.2fs: %s",
            exc.kind,
            role,
            name,
            time.perf_counter() - started,
            exc,
        )

    def _classify(self, exc: Exception, role: Role, override: str) -> LLMError | LLMUnavailable | None:
        """Map a client exception to LLMUnavailable (stop trying) or LLMError (retryable); None if not the LLM's."""
        name = self.model_name(role, override)
        provider = self.provider(role, override)
        if provider is not None:
            url = provider.url(self._settings)
            where = f"{provider.label} at {url}"
        else:  # an injected model: only its own client knows where it runs
            url = ""
            where = f"the server of the {role} model"
        subject = where[:1].upper() + where[1:]  # the same place, at the start of a sentence
        failure = network_failure(exc)
        if failure == "timeout":
            return LLMError(
                f"The {role} model {name} did not answer within {self._settings.llm_timeout_for(role):g} s "
                f"(LLM_TIMEOUT_{role.upper()} / LLM_TIMEOUT){f' at {url}' if url else ''}; a retry may succeed, "
                f"or raise the timeout for a slow machine.",
                kind="timeout",
            )
        if failure == "unreachable":
            hint = provider.unreachable_hint if provider else "Check that it runs"
            return LLMUnavailable(
                f"Cannot reach {where} for the {role} model {name} ({type(exc).__name__}: {exc}). "
                f"{hint}; answers are extractive until it is back.",
                kind="connection",
            )
        status = http_status(exc)
        if status is not None:
            detail = _first_line(exc)
            if status == 404:
                bare = providers.resolve(name, self._settings.llm_provider)[1] if provider else name
                hint = provider.model_hint.format(model=bare) if provider else "check the model name"
                return LLMUnavailable(
                    f"{subject} does not have the model {name}: {hint} ({detail}).",
                    kind="model_missing",
                )
            if status in (401, 403):
                hint = provider.auth_hint if provider else "check the model's credentials"
                return LLMUnavailable(
                    f"{subject} refused the {role} call to {name} (HTTP {status}: {detail}): {hint}.",
                    kind="not_configured",
                )
            kind = "server_error" if status >= 500 or status in (-1, 429) else "bad_request"
            return LLMError(
                f"{subject} failed the {role} call to {name} (HTTP {status}: {detail}); "
                f"a retry may succeed, the server's log says why.",
                kind=kind,
            )
        if isinstance(exc, (OutputParserException, ValidationError, json.JSONDecodeError)):
            return LLMError(
                f"The {role} model {name} answered with output that does not fit the expected schema: "
                f"{_first_line(exc)}",
                kind="invalid_output",
            )
        if failure == "broken" or isinstance(exc, httpx.HTTPError):  # the connection broke mid-answer, ...
            return LLMError(
                f"The connection to {where} failed during the {role} call to {name} "
                f"({type(exc).__name__}: {exc}); a retry may succeed.",
                kind="transport",
            )
        return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _is_llm_failure(exc: BaseException) -> bool:
    """The errors that count against the "llm" breaker: the ones ``_classify`` blames on the server."""
    return isinstance(exc, (LLMError, LLMUnavailable))


def _label(model: BaseChatModel) -> str:
    """A readable name for an injected model: its ``model`` / ``model_name`` field, else its LangChain type."""
    for attr in ("model", "model_name"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return model._llm_type


__all__ = ["ROLES", "TAG_NOSTREAM", "ChatModels", "LLMError", "LLMUnavailable", "Role"]
