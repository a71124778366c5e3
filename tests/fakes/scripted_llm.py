"""A LangChain chat model that answers from a script, for graph tests that must not need Ollama.

It behaves like a real chat model where the graph can tell: it records what it was sent, streams
its answer word by word (so ``stream_mode="messages"`` sees tokens), supports
``with_structured_output`` the way ChatOllama does (the reply text is parsed into the schema, and
text that does not fit raises ``OutputParserException``), can be made slow, and can fail the
next N calls with a given exception.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ConfigDict, PrivateAttr

from tests.fakes.self_check import is_self_check

Reply = str | dict[str, Any] | BaseModel
Script = Sequence[Reply] | Callable[[list[BaseMessage]], Reply]


def reply_text(reply: Reply) -> str:
    """The text a model would send for a scripted reply: dicts and models become JSON."""
    if isinstance(reply, BaseModel):
        return reply.model_dump_json()
    if isinstance(reply, dict):
        return json.dumps(reply, ensure_ascii=False)
    return reply


class ScriptedChatModel(BaseChatModel):
    """Answers with the next scripted reply, or with ``script(messages)`` when the script is a callable.

    ``calls`` holds the messages of every call (structured ones included), in order.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: str = "scripted"
    delay: float = 0.0
    """Seconds each call waits before answering (async calls sleep without blocking the loop)."""
    self_check_reply: str = "No"
    """The answer to NeMo's self-check input prompt; such calls consume no scripted reply and are
    kept in ``self_checks``, not in ``calls``."""

    _script: Script = PrivateAttr()
    _next: int = PrivateAttr(default=0)
    _errors: list[BaseException] = PrivateAttr(default_factory=list)
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _self_checks: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(
        self,
        script: Script,
        *,
        error: BaseException | None = None,
        error_times: int = 1,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._script = script if callable(script) else list(script)
        if error is not None:
            self.fail_next(error, times=error_times)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def calls(self) -> list[list[BaseMessage]]:
        return self._calls

    @property
    def self_checks(self) -> list[list[BaseMessage]]:
        return self._self_checks

    def fail_next(self, error: BaseException, *, times: int = 1) -> None:
        """Raise ``error`` on each of the next ``times`` calls (before any reply is consumed)."""
        with self._lock:
            self._errors.extend([error] * times)

    def _reply(self, messages: list[BaseMessage]) -> str:
        with self._lock:
            if is_self_check(m.content for m in messages):
                self._self_checks.append(list(messages))
                return self.self_check_reply
            self._calls.append(list(messages))
            if self._errors:
                raise self._errors.pop(0)
            if callable(self._script):
                return reply_text(self._script(messages))
            if self._next >= len(self._script):
                raise AssertionError(
                    f"ScriptedChatModel ran out of replies after {len(self._script)} calls; last messages: "
                    f"{[m.content for m in messages]}"
                )
            reply = self._script[self._next]
            self._next += 1
            return reply_text(reply)

    # sync ---------------------------------------------------------------------------------

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.delay:
            time.sleep(self.delay)
        text = self._reply(messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        if self.delay:
            time.sleep(self.delay)
        for piece in _words(self._reply(messages)):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk

    # async --------------------------------------------------------------------------------

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.delay:
            await asyncio.sleep(self.delay)
        text = self._reply(messages)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        if self.delay:
            await asyncio.sleep(self.delay)
        for piece in _words(self._reply(messages)):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                await run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
            await asyncio.sleep(0)  # let consumers see tokens as they arrive

    # structured output --------------------------------------------------------------------

    def with_structured_output(  # type: ignore[override]
        self, schema: type[BaseModel] | dict[str, Any], **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """The model piped into the parser ChatOllama uses: a Pydantic instance, or a dict for a JSON schema."""
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            return self | PydanticOutputParser(pydantic_object=schema)
        return self | JsonOutputParser()


def _words(text: str) -> list[str]:
    """Word-sized pieces that join back to ``text``."""
    return re.findall(r"\s*\S+\s*|\s+", text) or [""]
