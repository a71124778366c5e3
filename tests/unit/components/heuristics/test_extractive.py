"""How extractive answers attach their citations, as a reader of each language expects."""

from __future__ import annotations

from typing import Any

from components.heuristics.extractive import join_cited
from components.text.messages import NO_INFO


def test_english_sentences_cite_after_the_full_stop_with_spaces() -> None:
    out = join_cited([("Water only when the soil is dry.", 1), ("Empty the saucer.", 2)], "en")
    assert out == "Water only when the soil is dry. [1] Empty the saucer. [2]"


def test_japanese_sentences_cite_before_the_full_stop_without_spaces() -> None:
    out = join_cited([("火を止めてから味噌を溶き入れる。", 3), ("沸騰させない！", 2)], "ja")
    assert out == "火を止めてから味噌を溶き入れる[3]。沸騰させない[2]！"


def test_a_japanese_answer_never_runs_two_sentences_together() -> None:
    # a list item without a full stop and an English line quoted in a Japanese answer
    out = join_cited([("味噌は少なめに入れる", 1), ("Typical values are 1.2 to 2.0.", 2), ("味見する。", 1)], "ja")
    assert out == "味噌は少なめに入れる [1] Typical values are 1.2 to 2.0. [2] 味見する[1]。"


# ---------------------------------------------------------------- sentences that lean on a neighbour
def _extract(question: str, passage: str, language: str) -> str:
    from components.heuristics.extractive import extract_answer
    from components.text.tokenizer import Tokenizer

    tok = Tokenizer()
    idf = {t: 1.0 for t in tok(passage + question)}
    return extract_answer(question, [passage], tokenize=tok, idf=idf, language=language, max_sentences=1).answer


def test_the_sentence_that_names_what_the_chosen_one_describes_joins_it() -> None:
    passage = "梅雨の期間中ほとんど雨が降らない場合がある。このような梅雨のことを空梅雨という。梅雨明けは7月が多い。"
    answer = _extract("梅雨の期間中ほとんど雨が降らない場合を何と呼ぶ？", passage, "ja")
    assert "空梅雨" in answer and "梅雨明け" not in answer
    english = "Some rhythms have no metre at all. This is called free rhythm. Metre is common in Western music."
    assert "free rhythm" in _extract("What are rhythms with no metre called?", english, "en")


def test_a_chosen_sentence_that_points_back_brings_the_one_it_points_to() -> None:
    passage = (
        "生命の起源の最初の学説はアリストテレスが唱えた。彼は多くの動物を観察し、自著『動物誌』を書いた。"
        "近代にはパスツールが自然発生説を否定した。"
    )
    answer = _extract("『動物誌』の著者は誰か。", passage, "ja")
    assert "アリストテレス" in answer and "パスツール" not in answer


def test_a_sentence_that_stands_alone_is_answered_alone() -> None:
    passage = "味噌は火を止めてから溶き入れる。このとき、だしは沸騰させない。昆布は前の晩から水に浸けておく。"
    answer = _extract("味噌を入れるタイミングは？", passage, "ja")
    assert answer.startswith("味噌は火を止めてから") and "昆布" not in answer


# ---------------------------------------------------------------- notes that link to notes
def test_a_sentence_pointing_to_a_note_in_the_context_gives_way_to_that_notes_own() -> None:
    from components.heuristics.extractive import extract_answer
    from components.text.tokenizer import Tokenizer

    reading_list = "Read 20 books in 2025. Discussion notes for the book-club picks live in Book Club 2025-10-18."
    meeting = "When: Saturday 18 October 2025.\nBook: Convenience Store Woman by Sayaka Murata."
    question = "Which book did the book club discuss in October 2025?"
    tok = Tokenizer()
    idf = {t: 1.0 for t in tok(reading_list + meeting + question)}

    def answer(**links: Any) -> str:
        return extract_answer(question, [reading_list, meeting], tokenize=tok, idf=idf, **links).answer

    assert "live in Book Club" in answer()  # word for word, the pointer matches best
    linked = answer(links=[["Book Club 2025-10-18"], []], titles=["Reading List 2025", "Book Club 2025-10-18"])
    assert "live in Book Club" not in linked and "October 2025" in linked and "[2]" in linked


def test_the_words_of_a_link_are_no_evidence_for_the_sentence_holding_them() -> None:
    from components.heuristics.extractive import extract_answer
    from components.text.tokenizer import Tokenizer

    note = "Next goal: a marathon, written up in Kyoto Trip Plans."
    question = "What are my Kyoto trip plans?"
    tok = Tokenizer()
    idf = {t: 1.0 for t in tok(note + question)}
    kw: dict[str, Any] = {"tokenize": tok, "idf": idf}
    assert "[1]" in extract_answer(question, [note], **kw).answer
    unlinked = extract_answer(question, [note], links=[["Kyoto Trip Plans"]], titles=["Running Log"], **kw)
    assert unlinked.answer == NO_INFO["en"]
