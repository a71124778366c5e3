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


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("What was my finish time in the 2026 full marathon?", True),
        ("which book did the club discuss in October 2025", True),
        ("札幌市の人口は何人ですか？", True),
        ("第5回中央委員会総会が行われたのはいつか。", True),
        ("オランダは２０世紀に入って何を確立した", True),
        ("10% of sudden infant death syndrome (SIDS) deaths happen in newborns aged less than 6 months.", False),
        ("32% of liver transplantation programs required patients to discontinue methadone in 2001.", False),
        ("味噌は火を止めてから入れる。", False),
    ],
)
def test_a_question_asks_and_a_claim_states(text: str, asks: bool) -> None:
    assert answer_types.is_question(text) is asks


@pytest.mark.parametrize(
    ("question", "focus"),
    [
        ("Which book did the book club discuss in October 2025?", "book"),
        ("What dish did we cook on Sunday?", "dish"),
        ("What is the boiling point of mercury?", ""),
        ("読書会でどの本を読んだ？", "本"),
        ("When should I water the monstera?", ""),
    ],
)
def test_the_focus_of_a_which_or_what_question(question: str, focus: str) -> None:
    assert answer_types.focus(question) == focus


def test_a_field_line_answers_the_question_that_names_its_label() -> None:
    from components.heuristics.extractive import extract_answer
    from components.text.tokenizer import Tokenizer

    meeting = "When: Saturday 18 October 2025.\nWhere: Café Lento.\nBook: Convenience Store Woman by Sayaka Murata."
    question = "Which book did the club read in October 2025?"
    tok = Tokenizer()
    idf = {t: 1.0 for t in tok(meeting + question)}
    answer = extract_answer(question, [meeting], tokenize=tok, idf=idf, max_sentences=1).answer
    # the date matches the question best; the record's "Book:" line is what it asks for
    assert answer.startswith("When: Saturday 18 October 2025.") and "Convenience Store Woman" in answer
    assert "Café Lento" not in answer
