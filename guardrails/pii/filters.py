"""The filtering heuristics between Presidio's results and the detector's answer: each result's
span trimmed of what NER runs on into, dropped when the text around it says the result is not
what it claims, or extended over the rest of an English name (:func:`kept_span`).
"""

from __future__ import annotations

import re

from components.text.language import stop_words
from guardrails.pii.entities import NER_TYPES
from guardrails.pii.lexicons import NOT_NAME_WORDS_EN, NOT_NAMES_EN, ORG_WORDS_JA, TITLES_LATIN
from guardrails.pii.names_en import (
    FIRM_OF_SURNAMES,
    LEADING_TITLES,
    is_name,
    is_word,
    lone_name_ok,
    phrase_is_a_name,
    strong_cue,
    without_leading_function_words,
)
from guardrails.pii.names_ja import REGNAL

_CITATION = re.compile(r"\[\d+\]")
_ASCII_ONLY = re.compile(r"^[\x00-\x7f]+$")


def kept_span(entity_type: str, folded: str, start: int, end: int) -> tuple[int, int] | None:
    """The span a result of ``entity_type`` at ``start:end`` of ``folded`` should cover, or None
    when it cannot be what it claims."""
    if entity_type in NER_TYPES:
        start, end = _trim(folded, start, end)
    english_person = entity_type == "PERSON" and bool(_ASCII_ONLY.match(folded[start:end]))
    if english_person:
        # "The Berlin", "PM Allawi": the name is what follows the function words and the title
        start += without_leading_function_words(folded[start:end])
        title = LEADING_TITLES.match(folded, start, end)
        start = title.end() if title else start
    if end <= start or not _plausible(entity_type, folded, start, end):
        return None
    return (start, _whole_name_end(folded, end)) if english_person else (start, end)


_TITLED = re.compile(rf"\b{TITLES_LATIN}\.?\s*$")
_NAME_TOKEN = re.compile(r"\S+")
#: lower-case words inside a name (Thomas de Maizière, Ludwig van Beethoven, Oscar dos Santos)
_PARTICLES = frozenset(
    {"de", "da", "di", "do", "dos", "das", "del", "della", "du", "la", "le", "van", "von", "der", "den", "zu", "y"}
)


def foreign_name_span(folded: str, start: int, end: int, lang: str) -> tuple[int, int] | None:
    """The part of an English recogniser's PERSON span in a text in ``lang`` (German, French ...)
    that can be a name, or None.

    English NER reads capitalised nouns as names ("Welche Partei", "Einsatz"); in these languages a
    span is a name only after a title (Herr, Frau, Madame, Dr), or from the first of its words that
    is in the name lexicon (Angela Merkel, "Wirtschaftswissenschaften Milton Friedman") over the
    capitalised words, initials and particles that follow it (Thomas de Maizière, Herbert A. Simon).
    """
    words = [(m.start() + start, m.end() + start) for m in _NAME_TOKEN.finditer(folded[start:end])]
    function = stop_words(lang)
    while words and folded[words[0][0] : words[0][1]].casefold() in function:
        words.pop(0)
    if not words:
        return None
    text = [folded[s:e].strip(".,;:!?\"'()") for s, e in words]
    if _TITLED.search(folded[max(0, words[0][0] - 20) : words[0][0]]):
        return words[0][0], words[-1][1]
    # a German genitive or possessive s (Martin Luthers, Gandhis) on a known name
    first = next((i for i, w in enumerate(text) if is_name(w) or (w.endswith("s") and is_name(w[:-1]))), None)
    if first is None:
        return None
    last = first
    for i in range(first + 1, len(text)):
        word = text[i]
        if word[:1].isupper():
            last = i
        elif not (word in _PARTICLES and i + 1 < len(text) and text[i + 1][:1].isupper()):
            break
    return words[first][0], words[last][1]


def _trim(folded: str, start: int, end: int) -> tuple[int, int]:
    """Cut punctuation, brackets and citation markers off a span's ends."""
    span = folded[start:end]
    cite = _CITATION.search(span)
    if cite:
        end = start + cite.start()
        span = folded[start:end]
    bracket = span.find(" (")  # "John Barron (john@...)": NER runs on into the bracket
    if bracket > 0:
        end = start + bracket
        span = folded[start:end]
    verb = _LEADING_VERB.match(span)  # "Add John Barron to ...": NER takes the imperative in
    if verb and verb.end() < len(span):
        start += verb.end()
        span = folded[start:end]
    number = _TRAILING_NUMBER.search(span)  # "Dr. Rohatgi 2 stars": NER runs on into a count
    if number and number.start() > 0:
        end = start + number.start()
        span = folded[start:end]
    lead = re.match(r"^[\s\"'「『(（\[【]+", span)
    if lead:
        start += lead.end()
    tail = re.search(r"[\s\"'」』)）\]】,;:、。!?！？]+$", folded[start:end])
    if tail:
        end = start + tail.start()
    return start, end


_TRAILING_NUMBER = re.compile(r"(?:\s+\d[\d.,]*)+$")
_LEADING_VERB = re.compile(
    r"^(?:Add|Ask|Call|Email|E-mail|Send|Tell|Invite|Contact|Meet|Ping|Please|Thank|Thanks|Remind|Notify|Cc|Forward)\s+"
)


def _plausible(entity_type: str, folded: str, start: int, end: int) -> bool:
    """Drop results that cannot be what they claim, judged with the text around them.

    NER calls company names made of surnames (鈴木鉱業, 合同会社太田建設, Gordon and Sons)
    people, a lone common word at a sentence start a person ("Email Dr. ..."), and
    python-phonenumbers accepts bare order and ticket numbers as phones.
    """
    value = folded[start:end]
    before, after = folded[max(0, start - 30) : start], folded[end : end + 30]
    if entity_type == "PERSON":
        # a ruler's ordinal (ヘンリー8世) is the one digit a name holds
        digits = any(ch.isdigit() for ch in value) and not REGNAL.fullmatch(value.strip())
        if digits or "@" in value or not value.strip():
            return False
        if len(value.strip()) < 2 and (_ASCII_ONLY.match(value) or not _JA_TITLE_AFTER.match(after)):
            return False
        if _ASCII_ONLY.match(value):
            if value.islower() or value.strip().casefold() in NOT_NAMES_EN:
                return False
            if _ORG_AFTER_EN.match(after) or (" " not in value and _THE_BEFORE.search(before)):
                return False
            if _in_firm_name(folded, start, end):
                return False
            words = value.split()
            if len(words) == 1 and not lone_name_ok(words[0], before, after):
                return False
            capitalised = [w.strip(".,") for w in words if w[:1].isupper()]
            # a title before or a verb of saying after vouches for a run holding a word no dictionary
            # knows ("Leader Mahmoud Abbas", "Hassan Nasrallah called"), not for "Dear Customer Service"
            vouched = strong_cue(before, after) and not all(is_word(w) for w in capitalised)
            if len(words) > 1 and not phrase_is_a_name(capitalised) and not vouched:
                return False
        elif _VERB_END_JA.search(value) or (
            _ORG_AFTER_JA.match(after)
            or _ORG_END_JA.search(value)
            or _ORG_BEFORE_JA.search(before)
            or _PLACE_END_JA.search(value)
        ):
            return False
    if entity_type == "PHONE_NUMBER":
        if _DOTTED_NEIGHBOUR.search(before[-2:]) or _DOTTED_AFTER.match(after) or before.endswith("#"):
            return False
        if value.isdigit() and not _PHONE_WORDS.search(before) and not _JP_MOBILE.fullmatch(value):
            return False
        if _DOTTED_QUAD.fullmatch(value) or _DECIMAL.fullmatch(value) or _POSTCODE.fullmatch(value):
            return False
        if _CODE_BEFORE.search(before):
            return False
    return True


_JA_TITLE_AFTER = re.compile(r"^(?:さん|様|さま|氏|君|くん|ちゃん|殿|先生|部長|課長|社長|教授)")
_VERB_END_JA = re.compile(r"[\u4e00-\u9fff](?:した|された|れた|けた|いて|いた|って|った|える|する|た|て|る)$")


_ORG_AFTER_EN = re.compile(r"^(?:\s*(?:and|&)\s+Sons|,?\s+(?:Inc|LLC|Ltd|PLC|Group|Corp|Co|GmbH|LLP)\b|-[A-Z])")
_THE_BEFORE = re.compile(r"\b(?:the|a|an)\s$", re.I)
_ORG_AFTER_JA = re.compile("^" + ORG_WORDS_JA)
_ORG_END_JA = re.compile(ORG_WORDS_JA + "$")
_ORG_BEFORE_JA = re.compile(r"(?:株式会社|有限会社|合同会社|\(株\)|\(有\)|㈱)$")
_PLACE_END_JA = re.compile(r"[都道府県市区町村郡]$")
_JP_MOBILE = re.compile(r"0[5789]0\d{8}")
_DOTTED_QUAD = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_DECIMAL = re.compile(r"\d+\.\d+")
#: US ZIP+4 (78712-1179) and Brazil's CEP (01310-200) read as phones in some regions
_POSTCODE = re.compile(r"\d{5}-\d{3,4}")
#: a tracking or serial code runs on into digit groups ("1Z 999 AA1 01 2345 6784")
_CODE_BEFORE = re.compile(r"\b[A-Z]+\d+[A-Z\d]*\s$")
_DOTTED_NEIGHBOUR = re.compile(r"\d[.:]$")
_DOTTED_AFTER = re.compile(r"^[.:]\d")
_PHONE_WORDS = re.compile(r"(?:phone|tel|call|mobile|cell|fax|電話|携帯|連絡|ＴＥＬ)[^\n]{0,12}$", re.I)


def _in_firm_name(folded: str, start: int, end: int) -> bool:
    """Whether the span lies inside "Surname, Surname and Surname" (a firm, not three people)."""
    around = folded[max(0, start - 40) : end + 40]
    offset = max(0, start - 40)
    return any(m.start() + offset <= start and end <= m.end() + offset for m in FIRM_OF_SURNAMES.finditer(around))


def _whole_name_end(folded: str, end: int) -> int:
    """Extend an English name NER cut short ("Cristian" of "Cristian Weeks") over the surname
    that follows, so redaction does not leave half the name behind."""
    tail = _NAME_TAIL.match(folded, end)
    return tail.end() if tail and tail.group(1).casefold() not in NOT_NAME_WORDS_EN else end


_NAME_TAIL = re.compile(r" (?:(?:van|de|von|der|den|da|di|le|la) )*([A-Z][a-z]+)\b")
