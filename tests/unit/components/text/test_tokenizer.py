"""Tokenizer shared by BM25 and the graders: Japanese morphemes, English stems, full width folded."""

from components.text.tokenizer import Tokenizer


def test_tokenizer_handles_japanese_english_and_full_width() -> None:
    t = Tokenizer()
    assert t("味噌を入れる") == ["味噌", "入れる"]
    assert t("The retrievers were fused") == ["retriev", "fuse"]
    # BM25 stays one token inside Japanese text and in full width
    assert t("BM25のパラメータ") == ["bm25", "パラメータ"]
    assert t("ＢＭ２５") == ["bm25"]
    assert Tokenizer(stem=False, stopwords=False)("The Cats") == ["the", "cats"]
