"""A chat model whose streamed text passes a check one sentence at a time before anyone sees it.

LangGraph's ``stream_mode="messages"`` forwards a model's tokens to the client as they arrive,
before any later node (the output rail) has looked at them. Wrapped in ``ScreenedChatModel``, the
real model streams into a buffer that no client sees (its run is tagged ``nostream``); each
complete sentence goes through ``screen`` and only what ``screen`` returns is streamed, as this
model's own tokens. ``screen`` returning None withholds that sentence and everything after it
(the rest of the reply is still read, so the final message is whole for the nodes that check it).

Without streaming (``ainvoke`` outside a streaming run) the reply is returned as the model wrote
it: the node after generation checks whole answers.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict

from components.models.chat import TAG_NOSTREAM, Screen

# a sentence ends at . ! ? (followed by a space or a line end), at 。！？, or at a line break
_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")


def split_complete(buffer: str) -> tuple[list[str], str]:
    """The complete sentences at the start of ``buffer`` (each with its trailing whitespace) and the rest."""
    out: list[str] = []
    start = 0
    for m in _END.finditer(buffer):
        if m.end() == len(buffer) and not m.group(0):  # 。 at the very end: wait, a quote may follow
            break
        out.append(buffer[start : m.end()])
        start = m.end()
    return out, buffer[start:]


class ScreenedChatModel(BaseChatModel):
    """``inner`` with its streamed sentences passed through ``screen``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    inner: BaseChatModel
    screen: Screen

    @property
    def _llm_type(self) -> str:
        return f"screened-{self.inner._llm_type}"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self.inner.invoke(messages, stop=stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=_as_ai(reply))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = await self.inner.ainvoke(messages, stop=stop, **kwargs)
        return ChatResult(generations=[ChatGeneration(message=_as_ai(reply))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        config = RunnableConfig(tags=[TAG_NOSTREAM])  # the run's callbacks come from the ambient config
        gate = _Gate(self.screen)
        for chunk in self.inner.stream(messages, config=config, stop=stop, **kwargs):
            for text in gate.feed(str(chunk.content)):
                out = ChatGenerationChunk(message=AIMessageChunk(content=text))
                if run_manager:
                    run_manager.on_llm_new_token(text, chunk=out)
                yield out
        for text in gate.close():
            out = ChatGenerationChunk(message=AIMessageChunk(content=text))
            if run_manager:
                run_manager.on_llm_new_token(text, chunk=out)
            yield out
        yield _hidden_rest(gate)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        config = RunnableConfig(tags=[TAG_NOSTREAM])  # the run's callbacks come from the ambient config
        gate = _Gate(self.screen)
        async for chunk in self.inner.astream(messages, config=config, stop=stop, **kwargs):
            for text in gate.feed(str(chunk.content)):
                out = ChatGenerationChunk(message=AIMessageChunk(content=text))
                if run_manager:
                    await run_manager.on_llm_new_token(text, chunk=out)
                yield out
        for text in gate.close():
            out = ChatGenerationChunk(message=AIMessageChunk(content=text))
            if run_manager:
                await run_manager.on_llm_new_token(text, chunk=out)
            yield out
        yield _hidden_rest(gate)


class _Gate:
    """Sentence buffer between the model and the client: what was shown, and the whole reply."""

    def __init__(self, screen: Screen) -> None:
        self._screen = screen
        self._buffer = ""
        self.whole = ""
        self.shown = ""
        self.closed = False

    def feed(self, text: str) -> list[str]:
        self.whole += text
        self._buffer += text
        sentences, self._buffer = split_complete(self._buffer)
        return self._pass(sentences)

    def close(self) -> list[str]:
        rest, self._buffer = self._buffer, ""
        return self._pass([rest] if rest else [])

    def _pass(self, sentences: list[str]) -> list[str]:
        out = []
        for s in sentences:
            if self.closed:
                break
            checked = self._screen(s)
            if checked is None:
                self.closed = True
                break
            out.append(checked)
            self.shown += checked
        return out


def _hidden_rest(gate: _Gate) -> ChatGenerationChunk:
    """A last, empty-looking chunk: the streamed message ends with the whole reply for the nodes.

    The client was sent ``gate.shown`` token by token; the message the node gets back must be
    the model's whole reply so that the output rail checks (and masks or withholds) all of it.
    Its text travels in ``response_metadata`` of a chunk with no content, which LangGraph's
    message stream forwards as an empty token.
    """
    return ChatGenerationChunk(message=AIMessageChunk(content="", response_metadata={"screened_whole": gate.whole}))


def _as_ai(reply: Any) -> AIMessage:
    return reply if isinstance(reply, AIMessage) else AIMessage(content=str(getattr(reply, "content", reply)))
