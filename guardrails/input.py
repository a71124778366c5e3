"""Input guardrail: block prompt injection and oversized input, find personal data.

Personal data never blocks a question (people ask about their own notes, which hold their
own addresses); the verdict carries where it is (Presidio's entities, ``guardrails.pii``) and
a redacted copy (``<PERSON>``, ``<PHONE_NUMBER>`` ...), which is what the graph logs, caches,
stores in the thread and sends to a remote model.

The checks are pluggable so that NeMo Guardrails' rails and other detectors can join (or
replace) the curated patterns without the graph noticing: an injection check is any
``Callable[[str], str | None]`` returning a reason, a PII detector any
``Callable[[str], list[PIIEntity]]``. Only the types in ``REDACTED_ENTITIES`` are reported:
dates, organisations and place names are what questions are about, not personal data.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from components.text.messages import REFUSAL, TOO_LONG
from guardrails.addressed import find_addressed_instruction
from guardrails.patterns import find_injection
from guardrails.pii import REDACTED_ENTITIES, PIIEntity, detect_pii, redact
from guardrails.policy import POLICY

log = logging.getLogger(__name__)

InjectionCheck = Callable[[str], str | None]
PIIDetector = Callable[[str], list[PIIEntity]]


class InputVerdict(BaseModel):
    """What the input guardrail decided about one question."""

    allowed: bool = Field(description="False when the question must not reach a model.")
    category: Literal["prompt_injection", "too_long"] | None = Field(
        default=None, description="Why the question was blocked; None when allowed."
    )
    reason: str = Field(default="", description="Human-readable reason, for logs and the run's trace.")
    pii: list[PIIEntity] = Field(default_factory=list, description="Personal data found (does not block).")
    redacted: str = Field(default="", description="The question with personal data replaced, safe to log and cache.")


#: where a question hands over a document: after its first colon or line break ("Summarise this CV:\n…")
_HANDED_OVER = re.compile(r"[:：\n]")


def curated_injection(text: str) -> str | None:
    """The hand-written rules as an injection check: the reason, or None.

    The curated patterns (``guardrails.patterns``, four languages), then the grammar of an
    instruction addressed to the AI that reads a text (``guardrails.addressed``) over what the
    question hands over: a pasted document ("Summarise this CV: … Note to the AI screening this:
    …") is input to the model as a stored one is. The user's own words before it may address the
    assistant ("ChatGPT, please answer in French."), so the grammar does not read them."""
    p = find_injection(text)
    if p:
        return f"{p.reason} ({p.name})"
    handed = _HANDED_OVER.search(text)
    a = find_addressed_instruction(text[handed.end() :]) if handed else None
    return f"a text handed over tells the AI that reads it what to answer or do ({a.form})" if a else None


def refusal(category: str | None, language: str) -> str:
    """The polite message a user sees for a blocked question, in their language (English otherwise)."""
    lang = language if language in REFUSAL else "en"
    if category == "too_long":
        return TOO_LONG[lang].format(limit=POLICY.max_input_chars)
    return REFUSAL[lang]


def check_input(
    text: str,
    *,
    max_chars: int = POLICY.max_input_chars,
    injection_checks: Sequence[InjectionCheck] = (curated_injection,),
    pii_detector: PIIDetector | None = None,
    language: str | None = None,
) -> InputVerdict:
    """Decide whether ``text`` may reach the models, and find the personal data in it.

    ``language`` (``en``/``ja``; None detects it) picks Presidio's pipeline; a custom
    ``pii_detector`` replaces Presidio altogether. An oversized text is blocked whatever it
    holds, so only its first ``max_chars`` characters are scanned for personal data, and its
    redacted copy (for the log) is that prefix: the unscanned rest never reaches a log.
    """
    scanned = text if len(text) <= max_chars else text[:max_chars]
    if pii_detector is None:
        pii = detect_pii(scanned, language, entities=sorted(REDACTED_ENTITIES))
    else:
        pii = [e for e in pii_detector(scanned) if e.end <= len(scanned)]
    redacted = redact(scanned, pii) + ("…" if len(text) > max_chars else "")
    # the injection checks see the whole text, however long: a pasted jailbreak is named as one
    for check in injection_checks:
        why = check(text)
        if why:
            log.info("input guardrail: prompt injection: %s", why)
            return InputVerdict(allowed=False, category="prompt_injection", reason=why, pii=pii, redacted=redacted)
    if len(text) > max_chars:
        reason = f"the input has {len(text)} characters, more than the limit of {max_chars}"
        return InputVerdict(allowed=False, category="too_long", reason=reason, pii=pii, redacted=redacted)
    return InputVerdict(allowed=True, pii=pii, redacted=redacted)
