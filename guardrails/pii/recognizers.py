"""Presidio's recognizers for one language: its own (cards, IBAN, IP, SSN, phones through
python-phonenumbers in 14 regions' national formats), the pattern specs of ``specs.py`` with their
checks, postal addresses (``addresses.py``), and the ones that read spaCy's tokens for names NER
misses (``names_en.py``, ``names_ja.py``; GiNZA's own Person results are checked the same way).

Presidio is imported inside the functions, never at module level: the engine calls
:func:`build_recognizers` once it has imported Presidio without torch (``engine.py``).
"""

from __future__ import annotations

import re
from typing import Any

from guardrails.checksums import luhn_ok, my_number_ok
from guardrails.pii.addresses import address_spans
from guardrails.pii.entities import NER_TYPES
from guardrails.pii.names_en import cue_name_spans, is_given_name, is_word, name_word
from guardrails.pii.names_ja import ja_name_spans, ner_person_ok
from guardrails.pii.specs import PATTERN_SPECS, PatternSpec, email_ok, only_digits, phone_digits_ok

#: regions whose national formats python-phonenumbers reads a number without a country code in
#: (each adds a pass over the text): the project's users' and their contacts' commonest countries
PHONE_REGIONS = ("US", "GB", "DE", "FR", "JP", "CA", "AU", "IN", "ES", "IT", "NL", "BR", "CN", "KR")
#: python-phonenumbers' Leniency.VALID: the number must be a valid number of the region
#: (POSSIBLE, 0, only checks its length, and took order numbers and coordinates on the dev sets)
PHONE_LENIENCY = 1


def build_recognizers(lang: str, extractor: Any) -> list[Any]:
    """Every recognizer for one language (Presidio's registry keys recognizers by language)."""
    from presidio_analyzer import Pattern, PatternRecognizer
    from presidio_analyzer.predefined_recognizers import (
        CreditCardRecognizer,
        IbanRecognizer,
        IpRecognizer,
        PhoneRecognizer,
        UsSsnRecognizer,
    )

    class _Validated(PatternRecognizer):  # type: ignore[misc]
        """A pattern recognizer whose matches pass a checksum or a format check."""

        def __init__(self, spec: PatternSpec) -> None:
            import regex

            flags = regex.DOTALL | regex.MULTILINE | (0 if spec.case_sensitive else regex.IGNORECASE)
            super().__init__(
                supported_entity=spec.entity,
                name=spec.name,
                supported_language=lang,
                patterns=[Pattern(n, rx, s) for n, rx, s in spec.patterns],
                context=list(spec.context),
                global_regex_flags=flags,
            )
            self._check = spec.validator

        def validate_result(self, pattern_text: str) -> bool | None:
            # True raises the score to 1.0 (Presidio's rule): only for checksums; format checks
            # return None (keep the pattern's score) or False (drop the match)
            check = self._check
            if check == "luhn":
                d = only_digits(pattern_text)
                return 13 <= len(d) <= 19 and luhn_ok(d)
            if check == "my_number":
                return my_number_ok(only_digits(pattern_text))
            ok = True
            if check == "email":
                ok = email_ok(pattern_text, extractor)
            elif check == "phone":
                ok = phone_digits_ok(pattern_text)
            return None if ok else False

    class _IpRecognizer(IpRecognizer):  # type: ignore[misc]
        """Presidio's IP recognizer plus an IPv4 pattern bounded by digits rather than ``\\b``
        (``アドレスは192.168.0.1です`` has no word boundary in Unicode), without version strings."""

        PATTERNS = [*IpRecognizer.PATTERNS, Pattern("IPv4 (cjk)", _IPV4, 0.6)]  # noqa: RUF012 - Presidio's shape

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None, regex_flags: Any = None) -> Any:
            results = super().analyze(text, entities, nlp_artifacts, regex_flags)
            return [r for r in results if not _looks_like_version(text, r.start, r.end)]

    class _PhoneRecognizer(PhoneRecognizer):  # type: ignore[misc]
        """Presidio's python-phonenumbers recognizer, run on the stretches of digits and separators
        that hold seven digits or more, not on the whole text: each region is a pass over what it
        is given (4.9 ms of a 1.5 kB abstract over the whole text)."""

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> Any:
            results = []
            for window in _PHONE_WINDOW.finditer(text):
                if len(_DIGIT.findall(window.group(0))) < 7:
                    continue
                start = max(0, window.start() - 1)
                for r in super().analyze(text[start : window.end() + 1], entities, nlp_artifacts):
                    r.start += start
                    r.end += start
                    results.append(r)
            return results

    phone_context = ["phone", "telephone", "tel", "cell", "mobile", "call", "fax", "電話", "携帯", "連絡"]
    recognizers: list[Any] = [
        _ner_recognizer(lang),
        CreditCardRecognizer(supported_language=lang, context=["card", "credit", "visa", "カード", "クレジット"]),
        IbanRecognizer(supported_language=lang, context=["iban", "bank", "account", "口座", "振込"]),
        _IpRecognizer(supported_language=lang, context=["ip", "address", "server", "host", "アドレス", "サーバ"]),
        UsSsnRecognizer(supported_language=lang, context=["ssn", "social security", "社会保障番号"]),
        _PhoneRecognizer(
            supported_language=lang,
            context=phone_context,
            supported_regions=PHONE_REGIONS,
            leniency=PHONE_LENIENCY,
        ),
        _JaNameTagRecognizer(supported_language=lang) if lang == "ja" else _EnProperNameRecognizer(lang),
        _postal_address_recognizer_class()(supported_language=lang),
    ]
    recognizers += [_Validated(spec) for spec in PATTERN_SPECS]
    return [r for r in recognizers if r is not None]


_DIGIT = re.compile(r"\d")
#: a stretch that may hold a phone number: digits with the separators numbers are written with
_PHONE_WINDOW = re.compile(r"\+?\(?\d[\d \t().\-/]*\d(?:\s?(?:x|ext\.?)\s?\d+)?")
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = rf"(?<![\d.]){_OCTET}(?:\.{_OCTET}){{3}}(?![\d.])"
_VERSION_BEFORE = re.compile(r"(?:\bv|\bversion\s?|\bver\.?\s?|バージョン\s?|\brelease\s)$", re.IGNORECASE)
_VERSION_WORDS = re.compile(
    r"\b(?:version|build|release|upgrade|upgraded|update|updated)\b|バージョン|ビルド|更新|リリース", re.I
)
_NETWORK_WORDS = re.compile(
    r"\b(?:ip|ips|server|host|address|addr|login|logged|firewall|block|gateway|vpn|dns|subnet|ping|ssh|proxy|"
    r"client|router|connect\w*)\b|アドレス|サーバ|ホスト|アクセス|接続|ログイン|ファイアウォール",
    re.I,
)


def _looks_like_version(text: str, start: int, end: int) -> bool:
    """A dotted quad after "v"/"version", or in a sentence about versions and not about networks."""
    if _VERSION_BEFORE.search(text[max(0, start - 12) : start]):
        return True
    around = text[max(0, start - 50) : min(len(text), end + 50)]
    return bool(_VERSION_WORDS.search(around)) and not _NETWORK_WORDS.search(around)


def _postal_address_recognizer_class() -> type:
    from presidio_analyzer import LocalRecognizer, RecognizerResult

    class PostalAddressRecognizer(LocalRecognizer):  # type: ignore[misc]
        """Latin-script postal addresses, their lines joined into one span (``addresses.py``)."""

        def __init__(self, supported_language: str) -> None:
            super().__init__(
                supported_entities=["STREET_ADDRESS"], supported_language=supported_language, name="PostalAddresses"
            )

        def load(self) -> None:
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            if "STREET_ADDRESS" not in entities or not _DIGIT.search(text):  # every address has a number
                return []
            return [RecognizerResult("STREET_ADDRESS", s, e, score) for s, e, score in address_spans(text)]

    return PostalAddressRecognizer


def _ja_name_recognizer_class() -> type:
    from presidio_analyzer import LocalRecognizer, RecognizerResult

    class JaNameTagRecognizer(LocalRecognizer):  # type: ignore[misc]
        """Japanese names from Sudachi's tags, honorifics and cues (``names_ja.ja_name_spans``)."""

        def __init__(self, supported_language: str = "ja") -> None:
            super().__init__(supported_entities=["PERSON"], supported_language=supported_language, name="JaNameTags")

        def load(self) -> None:
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            if nlp_artifacts is None or "PERSON" not in entities or nlp_artifacts.tokens is None:
                return []
            spans = ja_name_spans(list(nlp_artifacts.tokens))
            return [RecognizerResult("PERSON", start, end, score) for start, end, score in spans]

    return JaNameTagRecognizer


def _ner_recognizer(lang: str) -> Any:
    """Presidio's spaCy NER recognizer; for Japanese, its Person results checked against the
    tokens (``names_ja.ner_person_ok``: GiNZA calls places and job words people)."""
    from presidio_analyzer.predefined_recognizers import SpacyRecognizer

    if lang != "ja":
        return SpacyRecognizer(supported_language=lang, supported_entities=sorted(NER_TYPES))

    class JaSpacyRecognizer(SpacyRecognizer):  # type: ignore[misc]
        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            results = super().analyze(text, entities, nlp_artifacts)
            if nlp_artifacts is None or nlp_artifacts.tokens is None:
                return results
            tokens = list(nlp_artifacts.tokens)
            kept = []
            for r in results:
                if r.entity_type == "PERSON":
                    inside = [t for t in tokens if r.start <= t.idx < r.end]
                    after = next((t for t in tokens if t.idx >= r.end), None)
                    if not ner_person_ok(inside, after):
                        continue
                kept.append(r)
            return kept

    return JaSpacyRecognizer(supported_language=lang, supported_entities=sorted(NER_TYPES))


def _en_name_recognizer_class() -> type:
    from presidio_analyzer import LocalRecognizer, RecognizerResult

    class EnProperNameRecognizer(LocalRecognizer):  # type: ignore[misc]
        """Two or three proper nouns in a row (tag NNP) that NER left unlabelled, and a capitalised
        word a cue points at (``names_en.cue_name_spans``): a name.

        ``en_core_web_sm`` misses names at sentence ends and foreign names ("for Eladio
        Viana."), yet tags their words as proper nouns. Runs the NER entities did label
        (places, organisations, dates) and runs with street or company words are left alone;
        the score sits just above the threshold, so NER's own PERSON wins any overlap.
        """

        def __init__(self, supported_language: str = "en") -> None:
            super().__init__(supported_entities=["PERSON"], supported_language=supported_language, name="EnProperNames")

        def load(self) -> None:
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            if nlp_artifacts is None or "PERSON" not in entities or nlp_artifacts.tokens is None:
                return []
            tokens = list(nlp_artifacts.tokens)
            results = []
            i = 0
            while i < len(tokens):
                j = i
                while j < len(tokens) and j - i < 3 and _run_token(tokens, i, j):
                    j += 1
                if j - i >= 2 and not (i > 0 and tokens[i - 1].text in ("the", "The")):
                    end = tokens[j - 1].idx + len(tokens[j - 1])
                    results.append(RecognizerResult("PERSON", tokens[i].idx, end, 0.5))
                i = max(j, i + 1)
            for start, end, score in cue_name_spans(text, tokens):
                results.append(RecognizerResult("PERSON", start, end, score))
            return results

    return EnProperNameRecognizer


def _run_token(tokens: list[Any], first: int, at: int) -> bool:
    """Whether ``tokens[at]`` continues a run of proper nouns that began at ``first``.

    Words NER labelled a place or a date never do. A run that starts with a known given name
    takes a surname that is also a street or company word (Hank Green); a word NER labelled a
    firm or a product joins only such a run or a run of words no dictionary knows (the small
    model calls "Kajetan Middelkoop" an organisation).
    """
    token = tokens[at]
    word = token.text
    surname = at > first and _surname_after_given(tokens[first], word)
    if token.tag_ != "NNP" or (not name_word(word) and not surname):
        return False
    if token.ent_type_ in ("GPE", "LOC", "FAC", "DATE", "TIME", "CARDINAL", "MONEY", "PERCENT"):
        return False
    if token.ent_type_:
        return is_given_name(tokens[first].text) or not is_word(word)
    return True


def _surname_after_given(first: Any, word: str) -> bool:
    return is_given_name(first.text) and word.isalpha() and word[0].isupper() and not word.isupper()


def _EnProperNameRecognizer(supported_language: str) -> Any:  # builds the class lazily
    return _en_name_recognizer_class()(supported_language=supported_language)


def _JaNameTagRecognizer(supported_language: str) -> Any:  # builds the class lazily
    return _ja_name_recognizer_class()(supported_language=supported_language)
