"""Passages that state different values for the same thing: "the 2024 note says 80 g, the 2026 one 70 g".

Two sentences of different documents contradict each other here when they give the same unit
different values (80 grams and 70 grams, 15:00 and 14:00, 8000円 and 9500円) and, with their
quantities taken out, say nearly the same words: the longer holds at least ``SAME_WORDS`` of the
shorter's words (the index's tokenizer: stems, MeCab surface forms, no stop words), fitted on the tune half of
``evals/data/contradictions.jsonl`` (``python -m evals.contradictions``). "The cat gets 80 g" and
"the dog gets 300 g" share a unit but not their subject; "7 engineers" and "2 designers" share no
unit. Dates of events and yes/no claims are not read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

#: least Jaccard overlap of two sentences' words (quantities taken out) for their values to be about
#: the same thing (fitted on the tune split; python -m evals.contradictions)
SAME_WORDS = 0.9

_UNITS: dict[str, str] = {
    **dict.fromkeys(["g", "gram", "grams", "gramme", "grammes", "グラム"], "g"),
    **dict.fromkeys(["kg", "kilogram", "kilograms", "キロ", "キログラム"], "kg"),
    **dict.fromkeys(["km", "kilometre", "kilometres", "kilometer", "kilometers", "キロメートル"], "km"),
    **dict.fromkeys(["m", "metre", "metres", "meter", "meters", "メートル"], "m"),
    **dict.fromkeys(["cm", "センチ"], "cm"),
    **dict.fromkeys(["ml", "millilitre", "millilitres", "milliliter", "milliliters", "ミリリットル"], "ml"),
    **dict.fromkeys(["l", "litre", "litres", "liter", "liters", "リットル"], "l"),
    **dict.fromkeys(["year", "years", "年"], "year"),
    **dict.fromkeys(["month", "months", "か月", "ヶ月", "カ月", "ヵ月"], "month"),
    **dict.fromkeys(["week", "weeks", "週間", "週"], "week"),
    **dict.fromkeys(["day", "days", "日", "日間"], "day"),
    **dict.fromkeys(["hour", "hours", "h", "hrs", "時間"], "hour"),
    **dict.fromkeys(["minute", "minutes", "min", "mins", "分"], "minute"),
    **dict.fromkeys(["yen", "円", "¥"], "yen"),
    **dict.fromkeys(["°c", "℃", "度", "degrees"], "°C"),
    **dict.fromkeys(["%", "％", "percent", "パーセント"], "%"),
    **dict.fromkeys(["時"], "o'clock"),
    **dict.fromkeys(["冊", "book", "books"], "book"),
    **dict.fromkeys(["人", "名"], "person"),
    **dict.fromkeys(["個", "つ"], "piece"),
    **dict.fromkeys(["回"], "time"),
    **dict.fromkeys(["枚"], "sheet"),
    **dict.fromkeys(["杯"], "cup"),
}
_NUMBER = r"\d+(?:,\d{3})*(?:\.\d+)?"
_CLOCK = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])")
#: a number and the word after it (English units and counted nouns: "10 books", "7 engineers")
_AFTER = re.compile(rf"(?<![0-9A-Za-z.,])({_NUMBER})\s*(°C|℃|%|％|[A-Za-z]+|[^\W\d_A-Za-z]+)", re.UNICODE)
#: Japanese measures written before the number (大さじ1)
_BEFORE = re.compile(rf"(大さじ|小さじ|カップ)\s*({_NUMBER})")
_JA_UNIT = re.compile(
    r"^(か月|ヶ月|カ月|ヵ月|週間|時間|日間|グラム|キログラム|キロメートル|キロ|メートル|センチ|ミリリットル|リットル"
    r"|パーセント|[年週日時分円度冊人名個回枚杯つ℃％])"
)


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str
    text: str


def quantities(sentence: str) -> list[Quantity]:
    """The number-and-unit pairs a sentence states (clock times as o'clock)."""
    s = unicodedata.normalize("NFKC", sentence)
    out: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for m in _CLOCK.finditer(s):
        out.append(Quantity(int(m.group(1)) + int(m.group(2)) / 60, "o'clock", m.group(0)))
        taken.append(m.span())
    for m in _BEFORE.finditer(s):
        out.append(Quantity(_value(m.group(2)), m.group(1), m.group(0)))
        taken.append(m.span())
    for m in _AFTER.finditer(s):
        if any(a <= m.start() < b for a, b in taken):
            continue
        word = m.group(2)
        ja = _JA_UNIT.match(word)
        unit = ja.group(1) if ja else word.lower()
        out.append(Quantity(_value(m.group(1)), _UNITS.get(unit, _counted(unit)), m.group(1) + " " + unit))
    return out


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def _counted(word: str) -> str:
    """A counted noun as a unit ("engineers" and "engineer" alike)."""
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


@dataclass(frozen=True)
class Contradiction:
    """Two documents' sentences giving one unit different values."""

    first: str
    """Label of the first document (as the caller named it)."""
    second: str
    unit: str
    first_value: str
    second_value: str
    first_sentence: str
    second_sentence: str


Tokenize = Callable[[str], list[str]]


@dataclass(frozen=True)
class Reading:
    """One sentence as the detector reads it, parsed once: its values per unit, how each is written,
    and its other words."""

    sentence: str
    values: dict[str, frozenset[float]]
    shown: dict[str, str]
    words: frozenset[str]


def read(sentence: str, tokenize: Tokenize) -> Reading:
    """A sentence's quantities and, with them taken out, its words (the index's tokenizer)."""
    found = quantities(sentence)
    values: dict[str, set[float]] = {}
    shown: dict[str, str] = {}
    for q in found:
        values.setdefault(q.unit, set()).add(q.value)
        shown.setdefault(q.unit, q.text)
    s = unicodedata.normalize("NFKC", sentence)
    for q in found:
        s = s.replace(q.text.split(" ")[0], " ", 1)
    units = {u for q in found for u in (q.unit, q.text.split(" ")[-1].lower())}
    kept = {t for t in tokenize(s) if not any(ch.isdigit() for ch in t) and t not in units and t not in _UNITS}
    return Reading(sentence, {u: frozenset(v) for u, v in values.items()}, shown, frozenset(kept))


def words(sentence: str, tokenize: Tokenize) -> set[str]:
    """The sentence's words with its quantities (numbers and their units) taken out."""
    return set(read(sentence, tokenize).words)


def _overlap(a: Reading, b: Reading) -> float:
    if not a.words or not b.words:
        return 0.0
    return len(a.words & b.words) / min(len(a.words), len(b.words))


def overlap(first: str, second: str, tokenize: Tokenize) -> float:
    """How much of the shorter sentence's words (quantities out) the longer one holds: a revision
    usually keeps the sentence and adds a clause ("…70 g a day now, since the vet asked for less")."""
    return _overlap(read(first, tokenize), read(second, tokenize))


def _clash(a: Reading, b: Reading, same_words: float) -> tuple[str, str, str] | None:
    differ = [u for u in a.values.keys() & b.values.keys() if a.values[u] != b.values[u]]
    if not differ or _overlap(a, b) < same_words:
        return None
    unit = differ[0]
    return unit, a.shown[unit], b.shown[unit]


def contradicting(
    first: str, second: str, tokenize: Tokenize, *, same_words: float = SAME_WORDS
) -> tuple[str, str, str] | None:
    """(unit, first value, second value) when two sentences give one unit different values and say
    nearly the same words otherwise; None when they do not."""
    return _clash(read(first, tokenize), read(second, tokenize), same_words)


def find(
    documents: Sequence[tuple[str, Sequence[str]]], tokenize: Tokenize, *, same_words: float = SAME_WORDS
) -> list[Contradiction]:
    """Contradictions between the sentences of different documents: ``documents`` is (label, its
    sentences), one entry per document; each pair of documents is named once, for its first clash.
    Each sentence stating a quantity is read once, whatever the number of pairs it is compared in."""
    readings = [(label, [read(s, tokenize) for s in sentences if quantities(s)]) for label, sentences in documents]
    out: list[Contradiction] = []
    for i, (a, ra) in enumerate(readings):
        for b, rb in readings[i + 1 :]:
            if a == b:
                continue
            hit = next(((x, y, c) for x in ra for y in rb if (c := _clash(x, y, same_words))), None)
            if hit:
                x, y, (unit, v1, v2) = hit
                out.append(Contradiction(a, b, unit, v1, v2, x.sentence, y.sentence))
    return out
