"""Input guardrail: block prompt injection and oversized input, find personal data.

Personal data never blocks a question (people ask about their own notes, which hold their
own addresses); the verdict carries where it is and a redacted copy, which is what the graph
writes to logs and uses to decide that the answer must not be cached.

The checks are pluggable so that NeMo Guardrails' jailbreak rails and Presidio's analyzer can
join (or replace) the curated patterns later without the graph noticing: an injection check
is any ``Callable[[str], str | None]`` returning a reason, a PII detector any
``Callable[[str], list[PIIMatch]]``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel, Field

from components.text.messages import REFUSAL, TOO_LONG
from guardrails.patterns import PIIMatch, find_injection, find_pii, redact
from guardrails.policy import POLICY

log = logging.getLogger(__name__)

InjectionCheck = Callable[[str], str | None]
PIIDetector = Callable[[str], list[PIIMatch]]


class InputVerdict(BaseModel):
    """What the input guardrail decided about one question."""

    allowed: bool = Field(description="False when the question must not reach a model.")
    category: Literal["prompt_injection", "too_long"] | None = Field(
        default=None, description="Why the question was blocked; None when allowed."
    )
    reason: str = Field(default="", description="Human-readable reason, for logs and the run's trace.")
    pii: list[PIIMatch] = Field(default_factory=list, description="Personal data found (does not block).")
    redacted: str = Field(default="", description="The question with personal data replaced, safe to log and cache.")


def curated_injection(text: str) -> str | None:
    """The curated English/Japanese patterns as an injection check: the pattern's reason, or None."""
    p = find_injection(text)
    return f"{p.reason} ({p.name})" if p else None


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
    pii_detector: PIIDetector = find_pii,
) -> InputVerdict:
    """Decide whether ``text`` may reach the models, and find the personal data in it."""
    pii = pii_detector(text)
    redacted = redact(text, pii)
    if len(text) > max_chars:
        reason = f"the input has {len(text)} characters, more than the limit of {max_chars}"
        return InputVerdict(allowed=False, category="too_long", reason=reason, pii=pii, redacted=redacted)
    for check in injection_checks:
        why = check(text)
        if why:
            log.info("input guardrail: prompt injection: %s", why)
            return InputVerdict(allowed=False, category="prompt_injection", reason=why, pii=pii, redacted=redacted)
    return InputVerdict(allowed=True, pii=pii, redacted=redacted)
