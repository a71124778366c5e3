"""Language detection and the token estimate that budgets context."""

from components.text.language import detect_language, estimate_tokens


def test_language_detection() -> None:
    assert detect_language("味噌汁の作り方を教えて") == "ja"
    assert detect_language("How do I make miso soup?") == "en"
    assert detect_language("BM25 の k1 は何？") == "ja"
    assert detect_language("1234 !!") == "und"


def test_estimate_tokens() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("味噌汁") == 3
    assert estimate_tokens("one two three four five six seven eight nine ten") == 13
    assert estimate_tokens("RRF の k は 60") == 2 + 4  # の and は, then three words x 1.3 rounded up
