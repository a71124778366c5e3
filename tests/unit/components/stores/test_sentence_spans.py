"""Where a chunk's quotable sentences stand in its text, so their vectors come from its forward pass."""

from __future__ import annotations

from components.stores.sentences import sentence_id, sentence_spans
from components.text.sentences import candidate_sentences


def test_each_sentence_is_found_where_it_is_written_whatever_the_whitespace() -> None:
    text = "Monstera Care > Watering\nWater when the top  5 cm of\tsoil are dry.  Never let it stand in water!"
    got = sentence_spans(text)
    sentences = candidate_sentences(text)
    assert [i for i, _ in got] == [sentence_id(s) for s in sentences]
    assert sentences[-2:] == ["Water when the top 5 cm of soil are dry.", "Never let it stand in water!"]
    for (_, (a, b)), s in zip(got, sentences, strict=True):
        assert " ".join(text[a:b].split()) == s  # the span holds the sentence's words, no more


def test_japanese_sentences_are_found() -> None:
    text = "味噌汁の作り方\n火を止めてから味噌を溶き入れる。沸騰させないのがコツだ。"
    got = dict(sentence_spans(text))
    for s in ("火を止めてから味噌を溶き入れる。", "沸騰させないのがコツだ。"):
        a, b = got[sentence_id(s)]
        assert text[a:b] == s


def test_a_sentence_with_markup_is_found_with_its_markup() -> None:
    # candidate_sentences drops ** and `; the span still covers the sentence as written
    text = "- **Freshness** – notes are searchable once re-indexed.\nSet `k1` to 1.2 for **short** notes."
    got = dict(sentence_spans(text))
    a, b = got[sentence_id("Freshness – notes are searchable once re-indexed.")]
    assert text[a:b] == "Freshness** – notes are searchable once re-indexed."
    a, b = got[sentence_id("Set k1 to 1.2 for short notes.")]
    assert text[a:b] == "Set `k1` to 1.2 for **short** notes."


def test_a_repeated_sentence_is_found_at_each_place_in_order() -> None:
    text = "It rains often here. It rains often here."
    got = sentence_spans(text)
    assert [span for _, span in got] == [(0, 20), (21, 41)]
