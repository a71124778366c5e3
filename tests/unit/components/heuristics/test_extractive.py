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
