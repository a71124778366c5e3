"""Language detection and the token estimate that budgets context."""

from components.text.language import detect_language, estimate_tokens, latin_language


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


def test_latin_language_tells_english_from_its_neighbours() -> None:
    assert latin_language("Welche Regeln gelten für den Datenschutz in der Firma?") == "de"
    assert latin_language("Quelles sont les règles pour les données personnelles?") == "fr"
    assert latin_language("What are the rules for personal data at the company?") == "en"
    # names, addresses and signature blocks keep English: "Al", "com", "van den" are no sentence
    assert latin_language("Al Arfsten 713 965 2158 al.arfsten@example.com") == "en"
    assert latin_language("Hi Rebeca van den Bosch, the package goes to Lake Drew.") == "en"
    assert latin_language("Die Hard is a film with Bruce Willis.") == "en"
