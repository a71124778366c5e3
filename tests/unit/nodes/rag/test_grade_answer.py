"""Answer grader: does the answer resolve the question? Its verdict, the confidence, and a warning
when the question names a number the cited passages never state."""

from __future__ import annotations

import pytest

from components.factory import Components
from components.text.messages import NO_INFO, NUMBERS_UNMET
from nodes.rag import grade_answer
from tests.fakes.ollama_server import Behaviour
from tests.integration.helpers import with_llm_server
from tests.unit.nodes.helpers import MONSTERA, answering, chunks, results, run, sent

ANSWER = "Water only when the top 5 cm of soil is dry [1]."


def state(notes: Components, answer: str = ANSWER, **extra: object) -> dict[str, object]:
    return {
        "question": MONSTERA,
        "language": "en",
        "results": results(chunks(notes, "Monstera Care")[1]),
        "sources": [{"n": 1}],
        "answer": answer,
        "path": "extractive",
        **extra,
    }


def test_an_answer_to_the_question_is_useful_and_its_confidence_joins_the_three_verdicts(notes: Components) -> None:
    graded = {
        "context_verdict": {"relevant": True, "score": 0.64, "reason": "", "path": "calibrated", "ranks": [1]},
        "hallucination": {"grounded": True, "score": 1.0, "unsupported": [], "path": "sentence_support"},
    }
    out = run(grade_answer.make(notes), state(notes, **graded))
    verdict = out["answer_verdict"]
    assert verdict["useful"] and verdict["path"] == "similarity"
    assert out["confidence"] == pytest.approx((0.64 * 1.0 * verdict["score"]) ** (1 / 3), abs=1e-3)
    assert "answer_failures" not in out and "notes" not in out


def test_no_information_is_not_useful_and_has_no_confidence(notes: Components) -> None:
    out = run(grade_answer.make(notes), state(notes, NO_INFO["en"], sources=[], answer_failures=2))
    assert not out["answer_verdict"]["useful"]
    assert out["confidence"] == 0.0 and out["answer_failures"] == 3


@pytest.mark.parametrize(
    ("question", "answer", "language"),
    [
        (
            "Who introduced Reciprocal Rank Fusion in the SIGIR 2010 short paper?",
            "Gordon V. Cormack, Charles L. A. Clarke and Stefan Büttcher, in the SIGIR 2009 short paper [1].",
            "en",
        ),
        (
            "Reciprocal Rank Fusion を 2010年に提案したのは誰？",
            "Reciprocal Rank Fusion を提案したのは Cormack、Clarke、Büttcher で、SIGIR 2009 の論文です [1]。",
            "ja",
        ),
    ],
)
def test_a_year_the_cited_note_does_not_state_is_a_warning_in_the_questions_language(
    notes: Components, question: str, answer: str, language: str
) -> None:
    what_it_is = chunks(notes, "Reciprocal Rank Fusion")[0]
    s = {**state(notes, answer), "question": question, "language": language, "results": results(what_it_is)}
    out = run(grade_answer.make(notes), s)
    assert out["answer_verdict"]["useful"], out["answer_verdict"]
    assert out["notes"] == [NUMBERS_UNMET[language].format(numbers="2010")]


def test_the_model_grades_an_llm_answer(notes: Components, ollama: tuple[str, Behaviour]) -> None:
    url, b = ollama
    b.chat_handler = answering(AnswerGrade={"useful": False, "reason": "it does not say when"})
    out = run(grade_answer.make(with_llm_server(notes, url)), state(notes, "Monsteras are plants [1].", path="llm"))
    assert out["answer_verdict"] == {"useful": False, "score": 0.0, "reason": "it does not say when", "path": "llm"}
    assert out["confidence"] == 0.0 and out["answer_failures"] == 1
    assert MONSTERA in sent(b.chat_requests) and "Monsteras are plants [1]." in sent(b.chat_requests)
