"""Output rail: mask personal data the sources do not hold, block leaked prompts or configuration.

NeMo Guardrails runs ``guardrails.output.check_output`` as the output rail's action. Personal
data in the answer that no passage contains came from the model and is masked; an answer that
repeats a line of the system prompts or other instruction text the passages do not contain has
leaked its prompt and is replaced by the refusal, with no sources. Citations (``[1]``) are left
as they are. A link or e-mail address the question did not ask for is left in the answer with a
warning naming the passage it came from (``guardrails.output.unasked_links``): what a poisoned
passage that got past the document rail wants an answer to carry.

Streaming: this node runs after generation, so a client streaming the graph's ``messages``
sees the generator's tokens before this check; the answer the run returns (``answer`` and the
thread's AIMessage) is the checked one. Clients that must never show unchecked text stream
``updates`` (or ``values``) instead, where the answer arrives only after this node (README,
"Streaming").
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.text import messages
from graph.context import Context
from graph.state import Passage, RAGState
from guardrails import refusal
from guardrails.output import requests_for_secrets, unasked_links
from guardrails.policy import POLICY
from nodes.rag.generate_answer import passages_of
from nodes.rag.rails import prompt_markers, rails_of
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def guard_output(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        answer = state.get("answer") or ""
        if not answer:
            return {}
        language = state.get("language") or "en"
        passages = passages_of(state)
        verdict = await rails_of(c).check_output(
            answer,
            passages=[p["text"] for p in passages],
            markers=prompt_markers(ctx),
            language=language,
            refusal=refusal(None, language),
        )
        out: dict[str, Any] = {}
        notes = []
        if verdict.flagged:
            log.warning("request %s: the output rail blocked the answer: %s", state.get("request_id"), verdict.flagged)
            notes.append(messages.ANSWER_WITHHELD.format(flagged="; ".join(verdict.flagged)))
            out.update(
                answer=refusal(None, language),
                sources=[],
                escalation={"reason": "output guardrail: leaked instructions", "node": "guard_output"},
            )
        elif POLICY.redact_unsupported_pii and verdict.text != answer:
            out["answer"] = verdict.text
            kinds = sorted({r.kind for r in verdict.redactions})
            notes.append(messages.ANSWER_MASKED.format(kinds=", ".join(kinds)))
        if not verdict.flagged:
            question, shown = state.get("question") or "", out.get("answer", answer)
            trusted = {p.get("n") for p in passages if c.settings.trusts(p.get("source"))}
            notes.extend(_link_notes(question, shown, passages, trusted))
            notes.extend(_secret_notes(question, shown, passages, trusted))
        if notes:
            out["notes"] = notes
        return out

    return guard_output


def _link_notes(question: str, answer: str, passages: list[Passage], trusted: set[int | None]) -> list[str]:
    """A warning for each link or e-mail address in the answer that the question did not ask for
    and no trusted passage (TRUSTED_SOURCES) holds."""
    notes = []
    for link in unasked_links(answer, question, [p["text"] for p in passages]):
        origin = _origin(passages, link.passages, trusted, messages.UNASKED_LINK_FROM)
        if origin is not None:
            notes.append(messages.UNASKED_LINK.format(kind=link.kind, value=link.value, origin=origin))
    return notes


def _secret_notes(question: str, answer: str, passages: list[Passage], trusted: set[int | None]) -> list[str]:
    """A warning for each sentence of the answer asking the reader for a secret the question did not
    ask about (a poisoned passage's phishing, in the model's words), unless a trusted passage asks too."""
    notes = []
    for req in requests_for_secrets(answer, question, [p["text"] for p in passages]):
        origin = _origin(passages, req.passages, trusted, messages.SECRET_REQUEST_FROM)
        if origin is not None:
            notes.append(messages.SECRET_REQUEST.format(sentence=req.sentence, origin=origin))
    return notes


def _origin(passages: list[Passage], numbers: tuple[int, ...], trusted: set[int | None], held: str) -> str | None:
    """Where a warned-of piece came from: ``held`` naming these passages (numbered from 1 in
    ``passages``), or that the model wrote it when none holds it; None when a trusted one holds it."""
    holders = [passages[n - 1] for n in numbers]
    if any(p.get("n") in trusted for p in holders):
        return None
    if not holders:
        return messages.UNASKED_LINK_NOWHERE
    return held.format(passages=", ".join(f"[{p.get('n')}] {p.get('title') or 'a passage'!r}" for p in holders))
