"""The pattern recognizers' data: each regex with its base score, the context words that lift it,
and the check a match must pass (a checksum or a format rule).

Patterns carry what NER cannot: e-mail (ASCII, so Japanese text glued to an address stays out
of it), phones in separated formats that python-phonenumbers' metadata rejects, cards (Luhn),
マイナンバー (check digit), 〒 postal codes, Japanese street addresses (``addresses.py`` reads
Latin-script ones), and English names after titles (Mr./Dr.; Japanese names before さん/様/氏 are
``names_ja.py``'s). They are plain data here and become Presidio objects in
``recognizers.py`` once the engine loads, so importing this module imports no Presidio.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from guardrails.pii.lexicons import PREFECTURES, TITLES_EN

# Japanese addresses: prefecture, city, ward or town, then the 番地 block and an optional building
_JA_WORD = r"[\u3005\u3041-\u3096\u30a1-\u30fa\u30fc\u4e00-\u9fff]"
_JA_NUM = r"(?:\d{1,4}|[一二三四五六七八九十]{1,3})"
#: 番地 part: 1-2-3, 1丁目2番3号, 1丁目2-3, 123番地, 1番地の2
_JA_BLOCK = rf"{_JA_NUM}(?:丁目|-)\s?\d{{1,4}}(?:番地?|-)?\s?(?:\d{{1,4}}号?)?|\d{{1,4}}番地?(?:の?\d{{1,4}}号?)?"
#: an optional building name and room after the block: シャルム隼町710, ○○ビル5階, 101号室
_JA_BUILDING = rf"(?:\s?{_JA_WORD}[\w\u30fc]{{0,15}}?\s?\d{{1,4}}(?:号室|階|F)?|\s?\d{{1,4}}(?:号室|階))?"
_JA_ADDRESS_FULL = (
    rf"(?:{PREFECTURES})\s?{_JA_WORD}{{1,12}}?[市区町村郡]\s?(?:{_JA_WORD}{{1,10}}?[市区町村]\s?)?"
    rf"{_JA_WORD}{{0,12}}?\s?(?:{_JA_BLOCK}){_JA_BUILDING}"
)
_JA_ADDRESS_CITY = (
    rf"(?<!{_JA_WORD}){_JA_WORD}{{1,6}}?[市区]\s?(?:{_JA_WORD}{{1,8}}?[区町村]\s?)?"
    rf"{_JA_WORD}{{1,10}}?\s?(?:{_JA_NUM}丁目\s?\d{{1,4}}(?:番地?|-)\s?(?:\d{{1,4}}号?)?|\d{{1,4}}-\d{{1,4}}(?:-\d{{1,4}})?)"
    rf"{_JA_BUILDING}"
)

_NAME_WORD = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"


@dataclass(frozen=True)
class PatternSpec:
    """One pattern recognizer's data, built into Presidio objects once the engine loads."""

    entity: str
    name: str
    patterns: tuple[tuple[str, str, float], ...]
    context: tuple[str, ...] = ()
    validator: str = ""
    case_sensitive: bool = False


_EMAIL = r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9][A-Za-z0-9._%+\-]*@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}(?![A-Za-z0-9\-])"  # noqa: E501

PATTERN_SPECS: tuple[PatternSpec, ...] = (
    PatternSpec(
        "EMAIL_ADDRESS",
        "EmailAsciiRecognizer",
        (("email (ascii)", _EMAIL, 0.6),),
        ("email", "e-mail", "mail", "メール", "アドレス", "連絡先"),
        validator="email",
    ),
    PatternSpec(
        "PHONE_NUMBER",
        "PhoneFormatRecognizer",
        (
            # Japanese with separators: 090-1234-5678, 03-1234-5678, 0120-123-456, 03(1234)5678
            ("jp separated", r"(?<![\d+\-.])0\d{1,4}[-\s]\d{1,4}[-\s]\d{3,4}(?![\d\-])", 0.5),
            ("jp brackets", r"(?<![\d+\-.])0\d{1,4}\(\d{1,4}\)\d{3,4}(?![\d\-])", 0.5),
            ("jp mobile bare", r"(?<![\d+\-.])0[5789]0\d{8}(?![\d\-])", 0.45),
            # international: +81 90-1234-5678, +44 (0)20 7946 0958, +1-212-555-0199
            (
                "international",
                r"(?<![A-Za-z0-9+])\+\d{1,3}[\s.\-]?(?:\(0\)\s?)?\(?\d{1,4}\)?(?:[\s.\-]?\d{2,4}){1,4}(?![\d\-])",
                0.55,
            ),
            # North American with separators, optional 1/001 prefix and extension
            (
                "nanp",
                r"(?<![A-Za-z0-9+\-.])(?:(?:001|1)[\s.\-])?(?:\(\d{3}\)\s?|\d{3}[\s.\-])\d{3}[\s.\-]\d{4}"
                r"(?:\s?(?:x|ext\.?|extension)\s?\d{1,6})?(?![\d\-])",
                0.5,
            ),
            ("nanp bare ext", r"(?<![A-Za-z0-9+\-.])\d{10}\s?(?:x|ext\.?)\s?\d{1,6}\b", 0.5),
            # a local number without its area code (555-0134): a phone only where a context word says so
            ("local seven digits", r"(?<![A-Za-z0-9+\-./#])\d{3}-\d{4}(?![\d\-])", 0.1),
            (
                "local seven digits after a cue",
                r"(?<=\b(?:call|phone|tel|text|ring|reach|cell|mobile|fax|number|desk)\b[^\n\d]{0,10})"
                r"\d{3,4}[-. ]\d{4}(?![\d\-])",
                0.5,
            ),
        ),
        (
            *("phone", "telephone", "tel", "cell", "mobile", "call", "fax", "ring", "text", "desk", "reach", "number"),
            *("電話", "携帯", "連絡", "ファックス", "fax番号"),
        ),
        validator="phone",
    ),
    PatternSpec(
        "CREDIT_CARD",
        "CardGroupedRecognizer",
        (
            (
                "card digits",
                r"(?<![\d\-])\d{4}(?:[\s\-]?\d{4}){2}[\s\-]?\d{1,7}(?![\d\-])|(?<![\d\-])3[47]\d{2}[\s\-]?\d{6}[\s\-]?\d{5}(?![\d\-])",
                0.5,
            ),
        ),
        ("card", "credit", "visa", "mastercard", "amex", "カード", "クレジット"),
        validator="luhn",
    ),
    PatternSpec(
        "JP_MY_NUMBER",
        "JpMyNumberRecognizer",
        (("my number", r"(?<!\d[\s\-]?)\d{4}[\s\-]?\d{4}[\s\-]?\d{4}(?![\s\-]?\d)", 0.5),),
        ("マイナンバー", "個人番号", "my number", "mynumber", "individual number"),
        validator="my_number",
    ),
    PatternSpec(
        "JP_POSTAL_CODE",
        "JpPostalCodeRecognizer",
        (
            ("postal mark", r"(?<=〒\s?)\d{3}-?\d{4}(?!\d)", 0.85),
            ("postal bare", r"(?<![\d\-])\d{3}-\d{4}(?![\d\-])", 0.1),
        ),
        ("郵便番号", "〒", "postal", "postcode", "zip"),
    ),
    PatternSpec(
        "STREET_ADDRESS",
        "JpAddressRecognizer",
        (("ja full address", _JA_ADDRESS_FULL, 0.85), ("ja city address", _JA_ADDRESS_CITY, 0.6)),
        ("住所", "所在地", "在住", "住む", "address"),
    ),
    PatternSpec(
        "PERSON",
        "TitledNameRecognizer",
        (("en title", rf"(?<=\b{TITLES_EN}\.?\s){_NAME_WORD}(?:\s{_NAME_WORD}){{0,2}}", 0.75),),
        case_sensitive=True,
    ),
)


def phone_digits_ok(value: str) -> bool:
    """Whether a phone-shaped match has as many digits as a phone number has (extension aside)."""
    digits = re.sub(r"\D", "", value.split("x")[0].split("ext")[0])
    if value.lstrip().startswith("+"):
        return 8 <= len(digits) <= 15
    if len(digits) in (7, 8) and re.fullmatch(r"\d{3,4}[-. ]\d{4}", value.strip()):
        return True
    if digits.startswith("0"):
        return len(digits) in (10, 11) or (digits.startswith("00") and len(digits) >= 12)
    return len(digits) in (10, 11)


def email_ok(value: str, extractor: Any) -> bool:
    """Whether an address's domain ends in a public suffix, by ``extractor`` (a ``TLDExtract``)."""
    return bool(extractor(value.rsplit("@", 1)[-1]).suffix)


def only_digits(value: str) -> str:
    """The digits of ``value``, separators dropped (what checksums and comparisons read)."""
    return re.sub(r"\D", "", value)
