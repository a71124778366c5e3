"""Output guardrail: redact personal data the sources do not contain, flag leaked instructions."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from graph.context import Context
from graph.state import RAGState
from guardrails import check_output
from guardrails.policy import POLICY
from nodes.rag.generate_answer import passages_of
from nodes.types import RAGNode as Node


def make(c: Components) -> Node:
    async def guard_output(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        answer = state.get("answer") or ""
        verdict = check_output(answer, context=[p["text"] for p in passages_of(state)])
        out: dict[str, Any] = {}
        notes = []
        if POLICY.redact_unsupported_pii and verdict.text != answer:
            out["answer"] = verdict.text
            kinds = sorted({r.kind for r in verdict.redactions})
            notes.append(f"The output guardrail redacted personal data not found in the sources ({', '.join(kinds)}).")
        if verdict.flagged:
            notes.append(f"The output guardrail flagged the answer: {'; '.join(verdict.flagged)}.")
        if notes:
            out["notes"] = notes
        return out

    return guard_output
