"""Output guardrail: redact personal data the sources do not contain, flag leaked instructions.

An answer may quote an e-mail address from the user's own notes (that is the point of asking
them), but personal data that appears in no passage was produced by the model: it is
redacted. Instruction text in an answer (chat-template tokens, "my system prompt says", a
distinctive line of the real prompts passed as ``markers``) means an injection got through
or the model echoed its prompt; the verdict flags it and the graph decides what the user sees.
Text that the context itself contains is never flagged, so a note about prompt engineering
can still be quoted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field

from guardrails.patterns import PIIMatch, canonical, find_pii, normalise, redact

#: generic signs of leaked instructions, on the normalised answer
LEAK_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "chat_template",
        re.compile(r"<\|(?:im_start|im_end|system|endoftext|start_header_id|eot_id)\|>|\[/?inst\]|<</?sys>>"),
    ),
    (
        "system_prompt",
        re.compile(
            r"\b(?:my|the) (?:system prompt|initial instructions|hidden instructions)\b"
            r"(?: (?:is|are|says?|reads?)\b| ?:)"
            r"|\bsystem prompt ?:|\bi was (?:instructed|told) (?:by the system )?to\b"
        ),
    ),
    (
        "system_prompt_ja",
        re.compile(r"システムプロンプト(?:は|の内容は|[:：])|(?:私|わたし)(?:への|に与えられた)指示は"),
    ),
)


class OutputVerdict(BaseModel):
    """The answer as the user may see it, and what the guardrail changed or found."""

    text: str = Field(description="The answer with unsupported personal data redacted.")
    redactions: list[PIIMatch] = Field(
        default_factory=list, description="Personal data removed, with offsets into the original answer."
    )
    flagged: list[str] = Field(
        default_factory=list, description="Names of leaked-instruction signs found; non-empty means do not show as-is."
    )


def check_output(answer: str, *, context: Sequence[str] = (), markers: Sequence[str] = ()) -> OutputVerdict:
    """Redact personal data not found in ``context``; flag instruction text not found there either.

    ``markers`` are distinctive phrases of the system prompts in use (a sentence or a heading
    of each); an answer that repeats one has leaked its prompt.
    """
    known: set[tuple[str, str]] = set()
    for passage in context:
        for m in find_pii(passage):
            known.add((m.kind, canonical(m.kind, passage[m.start : m.end])))
    redactions = [m for m in find_pii(answer) if (m.kind, canonical(m.kind, answer[m.start : m.end])) not in known]
    flat_answer = normalise(answer)
    flat_context = normalise("\n".join(context))
    flagged: list[str] = []
    for name, rx in LEAK_PATTERNS:
        hit = rx.search(flat_answer)
        if hit and hit.group(0) not in flat_context:
            flagged.append(name)
    for marker in markers:
        flat = normalise(marker)
        if flat and flat in flat_answer and flat not in flat_context:
            flagged.append(f"prompt_marker: {marker[:40]}")
    return OutputVerdict(text=redact(answer, redactions), redactions=redactions, flagged=flagged)
