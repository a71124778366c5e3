"""What kind of answer a question asks for, and whether a sentence holds one.

Extraction prefers sentences that hold the asked-for kind (a time for "when", a number for "how
many", for "which book" a note's field line labelled "Book:"); the non-LLM answer grader refuses
an answer that cannot be one at all. Only a price is strict: "How much did the monstera cost?" is
not answered by a sentence without an amount of money, whereas "when" is often answered by a
condition ("once the soil is dry") and Japanese 「いくら」 asks for any quantity (seats, a share, a
count), so those stay preferences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class AnswerType:
    """A kind of answer: the questions that ask for it, the sentences that hold it."""

    name: str
    asks: re.Pattern[str]
    says: re.Pattern[str]
    required: bool = False
    """An answer without this kind is no answer (else: a sentence with it is only preferred)."""

    def asked_by(self, question: str) -> bool:
        return bool(self.asks.search(question))

    def held_by(self, text: str) -> bool:
        return bool(self.says.search(text))


WHEN = AnswerType(
    "time",
    re.compile(r"\bwhen\b|\bwhat time\b|\bhow (?:often|long)\b|いつ|タイミング|何時|時期|何日|何曜", re.I),
    re.compile(
        r"\b(?:when|after|before|until|once|only when|every|daily|weekly|at \d)\b|\d+\s*(?:時|分|日|週|月|年|days?|"
        r"weeks?|minutes?|hours?|am|pm)|てから|たら|ときに|時に|前に|後に|あとで|直前|直後|までに|ごろ|頃",
        re.I,
    ),
)
AMOUNT = AnswerType(
    "amount",
    re.compile(
        r"\bhow (?:much|many)\b|\bwhat (?:value|number|percentage)\b|いくら|何人|何円|何個|何%|どのくらい|何割", re.I
    ),
    re.compile(r"\d"),
)
PRICE = AnswerType(
    "price",
    re.compile(
        r"\bhow much (?:did|does|do|will|would|is|was)\b[^?]*\b(?:cost|pay|paid|spend|spent|charge)"
        r"|\bwhat (?:is|was|did) (?:the )?(?:price|cost)\b|\bprice of\b"
        r"|値段|価格は|何円|料金|いくらで(?:買|売)|いくらかか",
        re.I,
    ),
    re.compile(
        r"[¥$€£]\s?\d|\d[\d,.]*\s?(?:万|千|億)?\s?(?:円|yen|dollars?|euros?|pounds?|USD|JPY|EUR|ドル|ユーロ)|\bfree\b|無料",
        re.I,
    ),
    required=True,
)
TYPES: tuple[AnswerType, ...] = (WHEN, AMOUNT, PRICE)


_ASKING = re.compile(
    r"[?？]\s*$"
    r"|^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|should|"
    r"would|will|has|have|had)\b"
    r"|何|なに|なん[でのにと]|いつ|どこ|どれ|どの|どう|どんな|どちら|誰|だれ|いくつ|いくら|なぜ|(?:か|かな)[。.]?\s*$",
    re.I,
)


def is_question(text: str) -> bool:
    """Whether ``text`` asks something, as opposed to stating a claim to check.

    A question names what it asks about ("my finish time in the 2026 marathon"); a claim ("10%
    of SIDS deaths happen before 6 months") is checked against passages that may say otherwise,
    so what it names is no constraint on them.
    """
    return bool(_ASKING.search(text))


# "which book", "what dish", 「どの本」: the noun naming what is asked for (not "what is", "what kind")
_FOCUS_EN = re.compile(
    r"\b(?:which|what)\s+(?!(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|"
    r"kind|sort|type|about)\b)([A-Za-z][\w-]*)",
    re.I,
)
_FOCUS_JA = re.compile(r"(?:どの|何の|なんの|どんな)([^\s、。？?をがはにでのと]{1,8})")
# a field line of a note, "Book: …", "- **When:** …", 「場所：…」 (markup already stripped)
_LABEL = re.compile(r"^\s*([^:：\s][^:：]{0,23}?)\s*[:：]\s*\S")


def focus(question: str) -> str:
    """The noun a which/what question asks for ("book" in "Which book did the club discuss?"), or ""."""
    m = _FOCUS_EN.search(question) or _FOCUS_JA.search(question)
    return m.group(1) if m else ""


def label(sentence: str) -> str:
    """The label of a field line ("Book" in "Book: Convenience Store Woman"), or ""."""
    m = _LABEL.match(sentence)
    return m.group(1) if m else ""


def asked(question: str) -> list[AnswerType]:
    """The kinds of answer ``question`` asks for."""
    return [t for t in TYPES if t.asked_by(question)]


def missing(question: str, answer: str) -> AnswerType | None:
    """A kind ``question`` requires that ``answer`` does not hold (None when it holds them all)."""
    return next((t for t in asked(question) if t.required and not t.held_by(answer)), None)
