"""The per-answer checks of an evaluation run, on answers whose right score is known."""

from __future__ import annotations

import asyncio

import pytest

from components.text.tokenizer import Tokenizer
from evals.qa_dataset import QASample
from evals.qa_metrics import Answered, Metrics, is_decline, match_ids, strip_citations


@pytest.fixture(scope="module")
def metrics() -> Metrics:
    return Metrics(tokenize=Tokenizer(stem=True, stopwords=False), k=2)


def answered(answer: str, ids: list[str], cited: list[str], declined: bool = False) -> Answered:
    return Answered(
        answer=answer, contexts=[f"passage of {i}" for i in ids], context_ids=ids, cited_ids=cited, declined=declined
    )


def test_declines_are_recognised_in_both_languages_and_answers_are_not() -> None:
    assert is_decline("情報が見つかりませんでした。", escalated=False)
    assert is_decline("No information found in the indexed documents.", escalated=False)
    assert is_decline("Anything at all", escalated=True)
    assert not is_decline("火を止めてから味噌を入れます [1]。", escalated=False)
    assert strip_citations("Water it weekly [1][2, 3].") == "Water it weekly."


def test_notes_match_gold_ids_given_relative_to_the_vault_folder() -> None:
    ids = match_ids(["/home/a/vaults/life/Monstera Care.md", "x"], [None, None], ["life/Monstera Care.md"])
    assert ids == ["life/Monstera Care.md", "x"]
    assert match_ids(["a10336p34"], [None], ["a10336p34"]) == ["a10336p34"]
    assert match_ids(["/v/other/Monstera Care.md.bak"], [None], ["Monstera Care.md"]) == [
        "/v/other/Monstera Care.md.bak"
    ]


def test_a_japanese_answer_holding_the_span_scores_on_every_reference_metric(metrics: Metrics) -> None:
    sample = QASample(
        id="q",
        question="味噌はいつ入れる？",
        ground_truth="火を止めてから",
        context_ids=["miso"],
        contexts=["passage of miso"],
    )
    got = answered("火を止めてから味噌を入れます [1]。", ["miso", "other"], ["miso"])
    m = asyncio.run(metrics.score(sample, got))
    assert m["span_in_answer"] == 1.0 and m["cites_gold"] == 1.0 and m["declined_correctly"] == 1.0
    assert m["id_context_recall@2"] == 1.0 and m["id_context_precision@2"] == 0.5
    assert m["rouge_l"] is not None and m["rouge_l"] > 0.4  # RAGAS's own ROUGE gives 0 here: no spaces
    assert m["context_recall"] == 1.0


def test_a_wrong_answer_and_a_wrong_decline_score_zero(metrics: Metrics) -> None:
    sample = QASample(id="q", question="When?", ground_truth="in spring", context_ids=["a"])
    wrong = asyncio.run(metrics.score(sample, answered("In autumn [1].", ["b", "c"], ["b"])))
    assert wrong["span_in_answer"] == 0.0 and wrong["cites_gold"] == 0.0 and wrong["id_context_recall@2"] == 0.0
    declined = asyncio.run(metrics.score(sample, answered("No information found.", ["b"], [], declined=True)))
    assert declined["declined_correctly"] == 0.0
    assert declined["context_recall"] is None  # no reference passages in this sample


def test_an_unanswerable_question_is_right_only_when_declined(metrics: Metrics) -> None:
    sample = QASample(id="u", question="Who won in 2031?", ground_truth="No information found", answerable=False)
    ok = asyncio.run(metrics.score(sample, answered("情報が見つかりませんでした。", [], [], declined=True)))
    bad = asyncio.run(metrics.score(sample, answered("Alice won [1].", ["a"], ["a"])))
    assert ok["declined_correctly"] == 1.0 and bad["declined_correctly"] == 0.0
    assert ok["span_in_answer"] is None and ok["rouge_l"] is None and ok["cites_gold"] is None
