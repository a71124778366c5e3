"""Answer types: a price question is not answered by a sentence without money; other kinds are
preferences, and Japanese 「いくら」 asks for any quantity."""

from __future__ import annotations

import pytest

from components.heuristics import answer_types
from components.heuristics.grading import grade_answer


@pytest.mark.parametrize(
    ("question", "answer", "missing"),
    [
        ("How much did the monstera cost?", "A Monstera deliciosa I bought in April 2024. [1]", "price"),
        ("How much did the monstera cost?", "It cost ¥3,800 at the garden centre. [1]", None),
        ("What was the price of the ticket?", "Tickets were 1,200 yen each. [2]", None),
        ("モンステラの値段は？", "2024年4月に園芸店で買った。[1]", "price"),
        ("モンステラの値段は？", "3800円だった。[1]", None),
        # いくら asks for any quantity: seats, shares, counts are answers
        ("ラオスの国民議会の議席数はいくらか？", "国民議会は149議席である。[1]", None),
        ("When should I water the monstera?", "Once the top soil is dry. [1]", None),
    ],
)
def test_only_a_price_is_required(question: str, answer: str, missing: str | None) -> None:
    kind = answer_types.missing(question, answer)
    assert (kind.name if kind else None) == missing


def test_the_answer_grader_refuses_a_price_question_answered_without_money() -> None:
    graded = grade_answer(
        "How much did the monstera cost?",
        "A Monstera deliciosa I bought at a garden centre in April 2024. [1]",
        embed=None,
        tokenize=str.split,
        idf={},
    )
    assert not graded.useful and "price" in graded.reason
