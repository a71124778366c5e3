"""Sentence splitting on Japanese and English sentence ends, losing no character."""

from components.text.sentences import split_sentences


def test_japanese_and_english_sentence_ends() -> None:
    text = "これはペンです。あれは何？すごい！Next one. Done"
    assert split_sentences(text) == ["これはペンです。", "あれは何？", "すごい！", "Next one. ", "Done"]
    assert "".join(split_sentences(text)) == text
