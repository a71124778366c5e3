"""Personal data in a text: fold it, run the analyzer in its language (and the other language's NER
on the other script's stretches), and keep the most trustworthy of overlapping results.

Full-width input (``０９０－１２３４－５６７８``, ``ｔａｒｏ＠ｅｘａｍｐｌｅ．ｃｏｍ``) is folded
character by character to half-width before analysis, without changing the text's length, so
every offset Presidio reports is an offset into the caller's original text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from components.text.language import detect_language, latin_language, stop_words
from guardrails.pii.engine import LANGUAGES, Engine, shared_engine
from guardrails.pii.entities import REDACTED_ENTITIES, PIIEntity
from guardrails.pii.filters import foreign_name_span, kept_span
from guardrails.pii.names_en import SENTENCE_START

if TYPE_CHECKING:
    from presidio_analyzer import RecognizerResult

#: a result below this score is not reported (pattern bases are set around it, context lifts)
MIN_SCORE = 0.4
#: when two results overlap, the more trustworthy kind wins before the score is compared:
#: checksummed numbers, then structured patterns, then NER
_PRIORITY = {
    "CREDIT_CARD": 0,
    "IBAN_CODE": 0,
    "JP_MY_NUMBER": 0,
    "EMAIL_ADDRESS": 0,
    "IP_ADDRESS": 1,
    "US_SSN": 1,
    "STREET_ADDRESS": 1,
    "PHONE_NUMBER": 2,
    "JP_POSTAL_CODE": 2,
    "PERSON": 3,
    "LOCATION": 4,
    "ORGANIZATION": 4,
    "DATE_TIME": 5,
}


#: the hyphens, dashes and minus signs NFKC leaves as they are, each read as "-"
_DASHES = {c: "-" for c in "‐‑‒–—―−－﹣"}
_DIGIT_LIKE = re.compile(r"[0-9]")


def fold(text: str) -> str:
    """Full-width letters, digits and symbols to half-width, one character for one character.

    NFKC of the whole string may change its length (``㈱`` becomes three characters); folding
    each character and keeping the original wherever NFKC would not give exactly one
    character keeps every offset valid in the caller's text. The long-vowel mark ``ー`` is a
    dash only between digits (``０９０ー１２３４``), never inside a katakana word.
    """
    out = list(text)
    for i, ch in enumerate(text):
        if ord(ch) < 0x80:
            continue
        folded = unicodedata.normalize("NFKC", ch)
        folded = _DASHES.get(folded, folded)
        if len(folded) == 1:
            out[i] = folded
    for i, ch in enumerate(out):
        if ch == "ー" and 0 < i < len(out) - 1 and _DIGIT_LIKE.match(out[i - 1]) and _DIGIT_LIKE.match(out[i + 1]):
            out[i] = "-"
    return "".join(out)


#: stretches of the other script worth a second NER pass in mixed text: two capitalised words;
#: a Japanese stretch with a kanji in it (a clause, with its particles, reads better than a word)
_LATIN_NAME_RUN = re.compile(r"(?:Mr|Mrs|Ms|Dr|Prof)?\.?\s?[A-Z][a-z]+(?:[ \-][A-Z][a-z]+)+")
_JA_CHARS = r"[\u3005\u3040-\u30ff\u4e00-\u9fff\u3000-\u303f]"
_JAPANESE_RUN = re.compile(rf"(?:{_JA_CHARS}+ ?)*[\u3005\u4e00-\u9fff](?: ?{_JA_CHARS}+)*")


def _analyze(engine: Engine, folded: str, lang: str, entities: list[str]) -> list[RecognizerResult]:
    with engine.locks[lang]:
        results: list[RecognizerResult] = engine.analyzer.analyze(text=folded, language=lang, entities=entities)
    return results


#: what every kind of personal data the detector finds is written with: a digit (phones, cards,
#: IBANs, IPs, house numbers, postcodes) or an @ (emails)
_DIGIT_OR_AT = re.compile(r"[0-9@]")
#: a character beyond the Latin alphabet's letters and punctuation (Japanese, whose names GiNZA reads
#: anywhere; full-width forms; zero-width characters between letters)
_NOT_LATIN = re.compile(r"[^\x00-\x7f\u00a0-\u024f\u2010-\u2027\u2030-\u205e]")
_LETTERS = re.compile(r"[^\W\d_]+")


def may_hold_personal_data(text: str) -> bool:
    """Whether ``text`` may hold anything :func:`detect_pii` reports, without loading Presidio.

    Names, places and streets are written capitalised, and every other kind with a digit or an @:
    a text without a digit, an @, a character beyond the Latin alphabet's, or a capitalised word
    of two letters or more other than a function word that opens a sentence ("How", "What",
    "The") holds none. Most questions to a knowledge base are such texts ("how does smoking
    affect lung cancer risk?"), and for them Presidio's import and pipeline (about 1.1 s) are
    never paid.
    """
    if _DIGIT_OR_AT.search(text) or _NOT_LATIN.search(text):
        return True
    for m in _LETTERS.finditer(text):
        word = m.group(0)
        if len(word) < 2 or not word[0].isupper():  # "I", "vitamin D": an initial comes with its name
            continue
        opens = SENTENCE_START.search(text[max(0, m.start() - 3) : m.start()])
        if not (opens and word.casefold() in stop_words("en")):
            return True
    return False


def detect_pii(text: str, language: str | None = None, *, entities: Sequence[str] | None = None) -> list[PIIEntity]:
    """Personal data in ``text``: non-overlapping, in reading order, offsets into ``text``.

    ``language`` is ``en`` or ``ja`` (anything else is analysed as English); None detects it
    from the script. English text whose function words say German, French, Spanish, Italian,
    Dutch or Portuguese keeps a PERSON only where a title or a known name says so. A Japanese
    text with an English full name in it (or the reverse) also gets the other language's name
    recognition on those stretches of text.
    ``entities`` defaults to :data:`REDACTED_ENTITIES`; add ``DATE_TIME``, ``LOCATION`` or
    ``ORGANIZATION`` to see those too.
    """
    if not text.strip() or not may_hold_personal_data(text):
        return []
    wanted = sorted(set(entities) if entities is not None else REDACTED_ENTITIES)
    detected = detect_language(text) if language is None else language
    lang = detected if detected in LANGUAGES else "en"
    engine = shared_engine()
    folded = fold(text)
    results = list(_analyze(engine, folded, lang, wanted))
    if lang == "en" and (latin := latin_language(text)) != "en":
        results = _foreign_names(results, folded, latin)
    names = [e for e in wanted if e in ("PERSON", "LOCATION", "ORGANIZATION")]
    if names:
        # the other language's NER on its own script's stretches only: GiNZA reads "John Smith"
        # glued to Japanese particles as one token, the English model reads kanji as nothing
        other, runs = ("en", _LATIN_NAME_RUN) if lang == "ja" else ("ja", _JAPANESE_RUN)
        for run in runs.finditer(folded):
            for r in _analyze(engine, run.group(0), other, names):
                r.start += run.start()
                r.end += run.start()
                results.append(r)
    return _resolve(text, folded, results)


def _foreign_names(results: list[RecognizerResult], folded: str, lang: str) -> list[RecognizerResult]:
    """English PERSON results in a German, French ... text cut to what can be a name, or dropped."""
    kept = []
    for r in results:
        if r.entity_type == "PERSON":
            span = foreign_name_span(folded, r.start, r.end, lang)
            if span is None:
                continue
            r.start, r.end = span
        kept.append(r)
    return kept


def _resolve(text: str, folded: str, results: Iterable[RecognizerResult]) -> list[PIIEntity]:
    """Keep the most trustworthy of overlapping results, above the score threshold."""
    candidates = []
    for r in results:
        if r.score < MIN_SCORE:
            continue
        span = kept_span(r.entity_type, folded, r.start, r.end)
        if span is not None:
            candidates.append((*span, r.entity_type, float(r.score)))
    candidates.sort(key=lambda c: (_PRIORITY.get(c[2], 9), -c[3], -(c[1] - c[0])))
    kept: list[tuple[int, int, str, float]] = []
    for c in candidates:
        if all(c[1] <= k[0] or k[1] <= c[0] for k in kept):
            kept.append(c)
    kept.sort()
    return [
        PIIEntity(start=s, end=e, entity_type=t, score=round(min(sc, 1.0), 4), text=text[s:e]) for s, e, t, sc in kept
    ]
