"""ScreenedChatModel: streamed text reaches callbacks one screened sentence at a time."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler

from components.models.screened import ScreenedChatModel, split_complete
from tests.fakes.scripted_llm import ScriptedChatModel


def test_sentences_split_at_their_ends_in_english_and_japanese() -> None:
    done, rest = split_complete("First one. Second! 三つ目。四つ目")
    assert done == ["First one. ", "Second! ", "三つ目。"]
    assert rest == "四つ目"
    assert split_complete("version 1.2 is out") == ([], "version 1.2 is out")  # no space after the dot


class Tokens(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.tokens: list[str] = []

    async def on_llm_new_token(self, token: str, **kwargs: Any) -> None:
        self.tokens.append(token)


def test_only_screened_text_is_streamed_and_the_reply_stays_whole() -> None:
    inner = ScriptedChatModel(["Keep this. Mask 42 here. Stop now. Never shown."])

    def screen(sentence: str) -> str | None:
        if sentence.startswith("Stop"):
            return None
        return sentence.replace("42", "<N>")

    model = ScreenedChatModel(inner=inner, screen=screen)
    handler = Tokens()

    async def run() -> str:
        chunks = [c async for c in model.astream("hi", config={"callbacks": [handler]})]
        return "".join(str(c.content) for c in chunks)

    shown = asyncio.run(run())
    assert shown == "Keep this. Mask <N> here. "
    assert "".join(handler.tokens) == shown  # the inner model's own tokens never reached the handler
