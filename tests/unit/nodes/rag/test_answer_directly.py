"""Direct answers (chit-chat, general questions): the model's reply, or, without one, that a model is needed."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from components.factory import Components
from components.text.messages import NEEDS_MODEL
from nodes.rag import answer_directly
from tests.fakes.ollama_server import Behaviour
from tests.integration.helpers import with_llm_server
from tests.unit.nodes.helpers import answering, run


@pytest.mark.parametrize(("question", "language"), [("こんにちは！", "ja"), ("Hello there!", "en")])
def test_without_a_model_the_answer_says_one_is_needed_in_the_questions_language(
    components: Components, question: str, language: str
) -> None:
    out = run(answer_directly.make(components), {"question": question, "language": language})
    assert out["answer"] == NEEDS_MODEL[language]
    assert out["path"] == "none" and out["sources"] == [] and out["confidence"] == 0.0
    assert out["escalation"] == {"reason": "direct answer needs a language model", "node": "answer_directly"}


def test_the_model_replies_in_the_questions_language_knowing_the_conversation(
    components: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    b.chat_handler = answering("どういたしまして。")
    thread = [HumanMessage("モンステラの水やりは？"), AIMessage("土が乾いたら [1]。"), HumanMessage("ありがとう！")]
    state = {"question": "ありがとう！", "language": "ja", "messages": thread}
    out = run(answer_directly.make(with_llm_server(components, url)), state)
    assert out == {"answer": "どういたしまして。", "path": "llm", "sources": [], "confidence": 1.0}
    sent = b.chat_requests[-1]["messages"]
    assert "Japanese" in sent[0]["content"]
    assert [m["content"] for m in sent[1:]] == ["モンステラの水やりは？", "土が乾いたら [1]。", "ありがとう！"]


def test_an_unreachable_model_is_the_same_as_none(components: Components, dead_url: str) -> None:
    out = run(answer_directly.make(with_llm_server(components, dead_url)), {"question": "Hi!", "language": "en"})
    assert out["answer"] == NEEDS_MODEL["en"] and out["path"] == "none"
