"""Context grader: are the retrieved chunks about the question? Its verdict sends the run on or back."""

from __future__ import annotations

from components.factory import Components
from nodes.rag import grade_context
from tests.fakes.ollama_server import Behaviour
from tests.integration.helpers import with_llm_server
from tests.unit.nodes.helpers import MISO, MONSTERA, answering, chunks, results, run


def test_a_chunk_that_answers_the_question_makes_the_context_relevant(notes: Components) -> None:
    watering, miso = chunks(notes, "Monstera Care")[1], chunks(notes, "味噌汁")[4]
    out = run(grade_context.make(notes), {"question": MONSTERA, "results": results(miso, watering)})
    verdict = out["context_verdict"]
    assert verdict["relevant"] and verdict["path"] == "calibrated"
    assert verdict["ranks"] == [2], "only the watering rule is relevant"
    assert "context_failures" not in out


def test_chunks_about_something_else_send_the_run_back_and_count_a_failure(notes: Components) -> None:
    state = {"question": MISO, "results": results(*chunks(notes, "Monstera Care")[:2]), "context_failures": 1}
    out = run(grade_context.make(notes), state)
    assert not out["context_verdict"]["relevant"]
    assert out["context_failures"] == 2


def test_no_results_are_not_relevant_and_nobody_is_asked(notes: Components, ollama: tuple[str, Behaviour]) -> None:
    url, b = ollama
    out = run(grade_context.make(with_llm_server(notes, url)), {"question": MONSTERA, "results": []})
    assert out["context_verdict"] == {
        "relevant": False,
        "score": 0.0,
        "reason": "no results",
        "path": "rules",
        "ranks": [],
    }
    assert out["context_failures"] == 1 and b.chat_requests == []


def test_with_a_model_the_passages_it_names_are_the_relevant_ones(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    b.chat_handler = answering(ContextGrade={"relevant": [2, 7], "reason": "passage 2 says when"})
    watering, miso = chunks(notes, "Monstera Care")[1], chunks(notes, "味噌汁")[4]
    out = run(
        grade_context.make(with_llm_server(notes, url)), {"question": MONSTERA, "results": results(miso, watering)}
    )
    # a number the model made up (7) is not a passage
    assert out["context_verdict"] == {
        "relevant": True,
        "score": 0.5,
        "reason": "passage 2 says when",
        "path": "llm",
        "ranks": [2],
    }
    system, asked = b.chat_requests[-1]["messages"]
    assert '<passage id="1">' not in system["content"] and MONSTERA in asked["content"]
    assert '<passage id="1">\n1. **いったん火を止めてから**' in asked["content"]
    assert '<passage id="2">\n**Water only when' in asked["content"]


def test_an_unreachable_model_leaves_the_calibrated_verdict(notes: Components, dead_url: str) -> None:
    watering = chunks(notes, "Monstera Care")[1]
    out = run(
        grade_context.make(with_llm_server(notes, dead_url)), {"question": MONSTERA, "results": results(watering)}
    )
    assert out["context_verdict"]["relevant"] and out["context_verdict"]["path"] == "calibrated"
