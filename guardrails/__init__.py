"""Input and output guardrails: prompt-injection checks, personal-data detection and redaction.

This first version runs curated patterns (English and Japanese) and regex/checksum PII
detection in process, with no model. NeMo Guardrails' rails and Presidio's analyzer plug
into the same entry points (``injection_checks=``, ``pii_detector=``) when they arrive. What the
guardrails decide (limits, what blocks, what is redacted or kept out of the cache) is
``policy.py``.
"""

from components.text.messages import REFUSAL, TOO_LONG
from guardrails.input import InputVerdict, check_input, curated_injection, refusal
from guardrails.output import OutputVerdict, check_output
from guardrails.patterns import PIIMatch, find_injection, find_pii, redact
from guardrails.policy import POLICY, GuardrailPolicy

__all__ = [
    "POLICY",
    "REFUSAL",
    "TOO_LONG",
    "GuardrailPolicy",
    "InputVerdict",
    "OutputVerdict",
    "PIIMatch",
    "check_input",
    "check_output",
    "curated_injection",
    "find_injection",
    "find_pii",
    "redact",
    "refusal",
]
