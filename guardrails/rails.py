"""The input and output rails, run by NeMo Guardrails with the project's checks as its actions.

NeMo Guardrails owns the rails' shape (``guardrails/config/rails``: which flows run on input and
on output, and what a blocked message does); the decisions are ours, registered as the actions
``rag_check_input`` and ``rag_check_output`` that the Colang flows execute. Those actions call
the checks this object is built with (``guardrails.input.check_input`` with the injection
detector and Presidio, ``guardrails.output.check_output``), and hand their verdicts back to the
graph through NeMo's output variables.

With an LLM configured, NeMo's own ``self check input`` rail (``guardrails/config/self_check``)
asks that model as well; its "block" adds to the non-LLM verdict, never overrides a block.

Offline by construction: the configs declare no models and no ``define user`` messages, so NeMo
builds no embedding index and FastEmbed downloads nothing; usage telemetry is off unless the
user opts in (``NEMO_GUARDRAILS_NO_USAGE_STATS=0``), set before NeMo is imported.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guardrails.input import InputVerdict
from guardrails.output import OutputVerdict

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel
    from nemoguardrails import LLMRails

log = logging.getLogger(__name__)

CONFIG_DIR = Path(__file__).parent / "config"
#: NeMo's documented switch; the project sets it to "1" unless the user already chose
TELEMETRY_ENV = "NEMO_GUARDRAILS_NO_USAGE_STATS"
#: self-check rails kept for this many chat model objects (one per event loop and model name)
SELF_CHECK_MODELS_KEPT = 8

InputCheck = Callable[[str, str], InputVerdict]
"""(text, language) -> verdict: injection, size and personal data, no LLM."""
OutputCheck = Callable[[str, Sequence[str], Sequence[str], str], OutputVerdict]
"""(answer, passages, prompt markers, language) -> the text the user may see and what changed."""


def _import_nemo() -> Any:
    """Import NeMo Guardrails with its usage telemetry off unless the user opted in.

    NeMo's runtime logs every event at INFO, the user's message included, before our action
    has redacted it: its loggers stay at WARNING, even under ``rag -v``.
    """
    os.environ.setdefault(TELEMETRY_ENV, "1")
    logging.getLogger("nemoguardrails").setLevel(logging.WARNING)
    import nemoguardrails

    return nemoguardrails


class Rails:
    """The project's rails: one NeMo ``LLMRails`` for input/output, one for the LLM self-check."""

    def __init__(
        self,
        *,
        input_check: InputCheck,
        output_check: OutputCheck,
        config_dir: Path = CONFIG_DIR,
    ) -> None:
        self._input_check = input_check
        self._output_check = output_check
        self._config_dir = config_dir
        self._rails: LLMRails | None = None
        # one self-check LLMRails per chat model object (the project builds a model per event
        # loop); by id, since chat models are unhashable pydantic objects; the few most recent kept
        self._self_checks: OrderedDict[int, tuple[BaseChatModel, LLMRails]] = OrderedDict()
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ loading
    def load(self) -> LLMRails:
        """Build the NeMo rails once (blocking: file reads and Colang parsing; call off the event loop)."""
        with self._lock:
            if self._rails is None:
                nemo = _import_nemo()
                config = nemo.RailsConfig.from_path(str(self._config_dir / "rails"))
                rails = nemo.LLMRails(config)
                rails.register_action(self._action_check_input, name="rag_check_input")
                rails.register_action(self._action_check_output, name="rag_check_output")
                self._rails = rails
                log.info("guardrails: NeMo rails loaded from %s", self._config_dir / "rails")
            return self._rails

    def _load_self_check(self, llm: BaseChatModel) -> LLMRails:
        with self._lock:
            known = self._self_checks.get(id(llm))
            if known is not None and known[0] is llm:
                self._self_checks.move_to_end(id(llm))
                return known[1]
            nemo = _import_nemo()
            config = nemo.RailsConfig.from_path(str(self._config_dir / "self_check"))
            rails = nemo.LLMRails(config, llm=_as_nemo_model(llm))
            self._self_checks[id(llm)] = (llm, rails)
            while len(self._self_checks) > SELF_CHECK_MODELS_KEPT:
                self._self_checks.popitem(last=False)
            return rails

    async def _loaded(self) -> LLMRails:
        # building parses files: off the event loop (langgraph dev refuses blocking calls on it)
        return self._rails if self._rails is not None else await asyncio.to_thread(self.load)

    # ------------------------------------------------------------------ the actions NeMo executes
    async def _action_check_input(self, context: dict[str, Any] | None = None) -> Any:
        from nemoguardrails.actions.actions import ActionResult

        ctx = context or {}
        text = str(ctx.get("user_message") or "")
        language = str(ctx.get("language") or "en")
        verdict = await asyncio.to_thread(self._input_check, text, language)
        updates = {"input_verdict": verdict.model_dump(mode="json"), "refusal": ctx.get("refusal", "")}
        return ActionResult(return_value=verdict.allowed, context_updates=updates)

    async def _action_check_output(self, context: dict[str, Any] | None = None) -> Any:
        from nemoguardrails.actions.actions import ActionResult

        ctx = context or {}
        answer = str(ctx.get("bot_message") or "")
        passages = [str(p) for p in ctx.get("passages") or []]
        markers = [str(m) for m in ctx.get("markers") or []]
        language = str(ctx.get("language") or "en")
        verdict = await asyncio.to_thread(self._output_check, answer, passages, markers, language)
        updates = {"output_verdict": verdict.model_dump(mode="json"), "output_text": verdict.text}
        return ActionResult(return_value=not verdict.flagged, context_updates=updates)

    # ------------------------------------------------------------------ what the graph calls
    async def check_input(self, text: str, *, language: str, refusal: str = "") -> InputVerdict:
        """Run the input rail on ``text``: the non-LLM checks, through NeMo."""
        rails = await self._loaded()
        res = await rails.generate_async(
            messages=[
                {"role": "context", "content": {"language": language, "refusal": refusal}},
                {"role": "user", "content": text},
            ],
            options={"rails": ["input"], "output_vars": ["input_verdict"]},
        )
        data = _output_data(res).get("input_verdict")
        if not isinstance(data, dict):  # the action did not run: a config error, never a silent allow
            raise RuntimeError("the input rail returned no verdict; check guardrails/config/rails")
        return InputVerdict.model_validate(data)

    async def self_check_input(self, text: str, llm: BaseChatModel) -> bool:
        """NeMo's LLM self-check of ``text`` by ``llm``: True when the model lets it through.

        Runs in a fresh ``contextvars`` context so that the model's tokens do not join the
        calling LangGraph run's message stream (a chat app would show "No" as answer text).
        """
        rails = await asyncio.to_thread(self._load_self_check, llm)

        async def ask() -> bool:
            res = await rails.generate_async(
                messages=[{"role": "user", "content": text}],
                options={"rails": ["input"], "log": {"activated_rails": True}},
            )
            return not _input_blocked(res)

        task = asyncio.get_running_loop().create_task(ask(), context=contextvars.Context())
        try:
            return await task
        except Exception as exc:
            # NeMo wraps the client's error; the caller maps errors by the client's exception type
            inner = getattr(exc, "inner_exception", None)
            if isinstance(inner, Exception):
                raise inner from exc
            raise

    async def check_output(
        self, answer: str, *, passages: Sequence[str], markers: Sequence[str], language: str, refusal: str = ""
    ) -> OutputVerdict:
        """Run the output rail on ``answer`` given the passages it was written from."""
        rails = await self._loaded()
        res = await rails.generate_async(
            messages=[
                {
                    "role": "context",
                    "content": {
                        "passages": list(passages),
                        "markers": list(markers),
                        "language": language,
                        "refusal": refusal,
                    },
                },
                {"role": "user", "content": ""},
                {"role": "assistant", "content": answer},
            ],
            options={"rails": ["output"], "output_vars": ["output_verdict"]},
        )
        data = _output_data(res).get("output_verdict")
        if not isinstance(data, dict):
            raise RuntimeError("the output rail returned no verdict; check guardrails/config/rails")
        return OutputVerdict.model_validate(data)


def _output_data(res: Any) -> dict[str, Any]:
    data = getattr(res, "output_data", None)
    return data if isinstance(data, dict) else {}


def _input_blocked(res: Any) -> bool:
    """Whether an input rail stopped the message, from NeMo's activated-rails log."""
    log_ = getattr(res, "log", None)
    for rail in getattr(log_, "activated_rails", None) or []:
        if getattr(rail, "type", "") == "input" and getattr(rail, "stop", False):
            return True
    return False


def _as_nemo_model(llm: BaseChatModel) -> Any:
    """The chat model as NeMo calls it, without the sampling parameters NeMo adds per task.

    NeMo binds ``temperature``/``max_tokens`` to each task call; ChatOllama passes bound
    keyword arguments to its client's ``chat``, which rejects them. The model's own settings
    (the project's temperature 0) apply instead.
    """
    from nemoguardrails.integrations.langchain.llm_adapter import LangChainLLMAdapter

    class _Adapter(LangChainLLMAdapter):  # type: ignore[misc]
        def _prepare_call_params(self, stop: list[str] | None, kwargs: dict[str, Any]) -> dict[str, Any]:
            params = super()._prepare_call_params(stop, kwargs)
            for key in ("temperature", "max_tokens", "max_new_tokens"):
                params.pop(key, None)
            return params

    return _Adapter(llm)
