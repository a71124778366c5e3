"""Hallucination check: is every statement of the answer in the passages? Its verdict regenerates or ends the run."""

from __future__ import annotations

from components.factory import Components
from components.text.messages import NO_INFO
from nodes.rag import check_hallucination
from tests.fakes.ollama_server import Behaviour
from tests.integration.helpers import with_llm_server
from tests.unit.nodes.helpers import MONSTERA, answering, chunks, results, run

GROUNDED = "Water only when the top 5 cm of soil is dry [1]."


def state(notes: Components, answer: str, path: str = "extractive") -> dict[str, object]:
    return {"question": MONSTERA, "results": results(chunks(notes, "Monstera Care")[1]), "answer": answer, "path": path}


def test_an_answer_the_passages_state_is_grounded(notes: Components) -> None:
    out = run(check_hallucination.make(notes), state(notes, GROUNDED))
    assert out["hallucination"]["grounded"] and out["hallucination"]["path"] == "sentence_support"
    assert "hallucination_failures" not in out


def test_a_statement_no_passage_holds_is_named_and_counted(notes: Components) -> None:
    made_up = "Monstera leaves turn blue when they are sung to every morning."
    out = run(check_hallucination.make(notes), {**state(notes, f"{GROUNDED} {made_up}"), "hallucination_failures": 1})
    verdict = out["hallucination"]
    assert not verdict["grounded"] and made_up in verdict["unsupported"]
    assert out["hallucination_failures"] == 2


def test_no_information_is_grounded(notes: Components) -> None:
    out = run(check_hallucination.make(notes), state(notes, NO_INFO["en"]))
    assert out["hallucination"]["grounded"]


def test_the_model_checks_an_llm_answer_against_the_numbered_passages(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    b.chat_handler = answering(HallucinationGrade={"grounded": False, "unsupported": ["It needs daily water."]})
    out = run(check_hallucination.make(with_llm_server(notes, url)), state(notes, "It needs daily water [1].", "llm"))
    assert out["hallucination"] == {
        "grounded": False,
        "score": 0.0,
        "path": "llm",
        "unsupported": ["It needs daily water."],
    }
    assert out["hallucination_failures"] == 1
    system, asked = b.chat_requests[-1]["messages"]
    assert system["role"] == "system" and '<passage id="1">' not in system["content"]
    assert '<passage id="1">\n**Water only when the top 5 cm' in asked["content"]
    assert asked["content"].endswith("Answer: It needs daily water [1].")


def test_an_extractive_answer_is_checked_by_sentence_support_even_with_a_model(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    out = run(check_hallucination.make(with_llm_server(notes, url)), state(notes, GROUNDED))
    assert out["hallucination"]["path"] == "sentence_support" and b.chat_requests == []
