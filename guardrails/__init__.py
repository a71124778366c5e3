"""Input and output guardrails: prompt-injection checks, personal-data detection and redaction.

Injection checks are curated patterns (English and Japanese) in ``patterns.py``; personal data
is found by Presidio with spaCy pipelines for English and Japanese plus pattern recognizers
(``pii/``), and replaced by ``<ENTITY_TYPE>`` placeholders. NeMo Guardrails runs both as its
rails' actions (``rails.py``). What the guardrails decide (limits, what blocks, what is
redacted or kept out of the cache) is ``policy.py``.
"""

from components.text.messages import REFUSAL, TOO_LONG
from guardrails.input import InputVerdict, check_input, curated_injection, refusal
from guardrails.output import OutputVerdict, check_output
from guardrails.patterns import find_injection
from guardrails.pii import REDACTED_ENTITIES, PIIEntity, canonical, detect_pii, redact
from guardrails.policy import POLICY, GuardrailPolicy

__all__ = [
    "POLICY",
    "REDACTED_ENTITIES",
    "REFUSAL",
    "TOO_LONG",
    "GuardrailPolicy",
    "InputVerdict",
    "OutputVerdict",
    "PIIEntity",
    "canonical",
    "check_input",
    "check_output",
    "curated_injection",
    "detect_pii",
    "find_injection",
    "redact",
    "refusal",
]
