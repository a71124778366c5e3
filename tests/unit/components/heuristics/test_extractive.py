"""How extractive answers attach their citations, as a reader of each language expects."""

from __future__ import annotations

from components.heuristics.extractive import join_cited


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
