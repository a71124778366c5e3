"""Redaction and comparison: each entity replaced by its type's placeholder, and one spelling per
value, so that the same personal data written two ways compares equal."""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from collections.abc import Sequence

from guardrails.pii.detection import detect_pii
from guardrails.pii.entities import REDACTED_ENTITIES, PIIEntity
from guardrails.pii.lexicons import HONORIFICS_JA, TITLES_EN
from guardrails.pii.specs import only_digits


def placeholder(entity_type: str) -> str:
    """What replaces an entity in redacted text: ``<PERSON>``, ``<PHONE_NUMBER>`` ..."""
    return f"<{entity_type}>"


_PLACEHOLDER = re.compile(r"<[A-Z][A-Z_]*>")


def has_placeholder(text: str) -> bool:
    """Whether ``text`` holds a redaction placeholder (a rewrite of a thread that carried personal data)."""
    return _PLACEHOLDER.search(text) is not None


def redact(text: str, entities: Sequence[PIIEntity]) -> str:
    """``text`` with each entity replaced by its placeholder (``<PERSON>``, ``<PHONE_NUMBER>`` ...).

    A plain splice rather than presidio-anonymizer: the entities are already non-overlapping
    and the replacement is a constant per type, so the anonymizer would add an import and
    ~1 ms per call for the same string.
    """
    out: list[str] = []
    pos = 0
    for e in sorted(entities, key=lambda x: x.start):
        if e.start < pos:  # overlapping input: the earlier entity already covers it
            continue
        out.append(text[pos : e.start])
        out.append(placeholder(e.entity_type))
        pos = e.end
    out.append(text[pos:])
    return "".join(out)


_HONORIFIC_STRIP = re.compile(rf"^(?:{TITLES_EN})\.?\s+|{HONORIFICS_JA}$")


def redact_personal_data(text: str, language: str | None = None) -> str:
    """``text`` with the personal data the input rail redacts replaced by placeholders (for texts
    that are stored but are not questions: feedback reasons)."""
    return redact(text, detect_pii(text, language, entities=sorted(REDACTED_ENTITIES))) if text.strip() else text


def canonical(entity_type: str, value: str) -> str:
    """One spelling per value, so the same data written two ways compares equal.

    Phones compare on their national significant number (``+81 3-1234-5678`` and
    ``03-1234-5678`` are one number, as are ``+1 (212) 555-0199`` and ``212.555.0199``);
    numbers with checksums on their digits; e-mails case-folded; names and addresses
    NFKC-folded, case-folded, without spaces, punctuation or honorifics.
    """
    v = unicodedata.normalize("NFKC", value).strip()
    if entity_type == "EMAIL_ADDRESS":
        return v.casefold()
    if entity_type == "PHONE_NUMBER":
        return _phone_canonical(v)
    if entity_type in ("CREDIT_CARD", "JP_MY_NUMBER", "US_SSN", "JP_POSTAL_CODE"):
        return only_digits(v)
    if entity_type == "IBAN_CODE":
        return re.sub(r"[^0-9A-Za-z]", "", v).upper()
    if entity_type == "IP_ADDRESS":
        try:
            return str(ipaddress.ip_address(v))
        except ValueError:
            return v.casefold()
    v = _HONORIFIC_STRIP.sub("", v)
    return re.sub(r"[\W_]+", "", v).casefold()


def _phone_canonical(value: str) -> str:
    main = re.split(r"(?i)\s?(?:x|ext\.?|extension)\s?\d", value)[0]
    digits = only_digits(main)
    if main.startswith("+") or digits.startswith("00"):
        import phonenumbers

        try:
            number = phonenumbers.parse("+" + digits.removeprefix("00") if not main.startswith("+") else main)
            return str(number.national_number)
        except phonenumbers.NumberParseException:
            return digits
    if digits.startswith("0"):
        return digits[1:]
    if len(digits) == 11 and digits.startswith("1"):
        return digits[1:]
    return digits
