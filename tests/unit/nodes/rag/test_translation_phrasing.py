"""When the rewriter is asked for a translation, and which translations become a phrasing."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from nodes.rag import prompts
from nodes.rag.rewrite_query import _translation, _translation_instruction
from nodes.rag.schemas import Rewrite


def components(*languages: str) -> Any:
    held = frozenset(languages)
    return SimpleNamespace(corpus_of=lambda names: SimpleNamespace(languages=held))


@pytest.mark.parametrize(
    ("question", "held", "asks_for"),
    [
        ("モンステラの水やりはいつ？", ("ja", "en"), "English"),
        ("When do I water the monstera?", ("ja", "en"), "Japanese"),
        ("When do I water the monstera?", ("en",), None),  # SciFact-like: nothing to translate into
        ("味噌汁の作り方", ("ja",), None),
        ("12345", ("ja", "en"), None),  # no language to translate from
    ],
)
def test_a_translation_is_asked_for_only_when_the_index_holds_the_other_language(
    question: str, held: tuple[str, ...], asks_for: str | None
) -> None:
    text = _translation_instruction(components(*held), {"collection": "notes"}, question)
    if asks_for is None:
        assert text == prompts.NO_TRANSLATION_INSTRUCTION
    else:
        assert "Also write translation" in text and f"in {asks_for}" in text


def test_only_a_translation_into_the_other_language_becomes_a_phrasing() -> None:
    asked = "モンステラの水やりはいつ？"
    assert _translation(Rewrite(question=asked, translation="When to water the monstera?"), asked) == [
        "When to water the monstera?"
    ]
    assert _translation(Rewrite(question=asked, translation="モンステラの水やり"), asked) == []  # not translated
    assert _translation(Rewrite(question=asked, translation="  "), asked) == []
