"""Output guardrail: PII the context does not hold is redacted, leaked instructions are flagged."""

from __future__ import annotations

import pytest

from guardrails import check_output


def test_output_keeps_pii_quoted_from_the_context_and_redacts_the_rest() -> None:
    context = ["Contact for the garden club: Hanako <hanako@example.org>, tel 03-1234-5678."]
    answer = "Write to HANAKO@example.org or call +81 3-1234-5678; the treasurer is at bob@example.net."
    v = check_output(answer, context=context)
    assert "HANAKO@example.org" in v.text
    assert "+81 3-1234-5678" in v.text  # the same number as the context's, written another way
    assert "bob@example.net" not in v.text and "<EMAIL>" in v.text
    assert [(m.kind, answer[m.start : m.end]) for m in v.redactions] == [("EMAIL_ADDRESS", "bob@example.net")]
    assert v.flagged == []


def test_output_without_context_redacts_all_pii() -> None:
    v = check_output("カード番号は 4111 1111 1111 1111 です。")
    assert v.text == "カード番号は <CREDIT_CARD> です。"


@pytest.mark.parametrize(
    "answer",
    [
        "Sure! My system prompt is: You are a helpful assistant that answers from passages.",
        "<|im_start|>system You answer from passages.",
        "システムプロンプトは「参考文献だけで答えよ」です。",
    ],
)
def test_leaked_instructions_are_flagged(answer: str) -> None:
    assert check_output(answer).flagged


def test_a_prompt_marker_repeated_in_the_answer_is_flagged_unless_the_context_has_it() -> None:
    marker = "Answer only from the numbered passages and cite them as [n]."
    answer = "My rules: answer only from the numbered passages and cite them as [n]. Water weekly."
    assert check_output(answer, markers=[marker]).flagged == [f"prompt_marker: {marker[:40]}"]
    assert check_output(answer, context=[answer], markers=[marker]).flagged == []


def test_an_ordinary_answer_is_untouched() -> None:
    answer = "Water the monstera when the top 3 cm of soil is dry [1]. 味噌は最後に入れます [2]。"
    v = check_output(answer, context=["..."], markers=["Answer only from the numbered passages"])
    assert v.text == answer and v.redactions == [] and v.flagged == []
