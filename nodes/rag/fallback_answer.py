"""The polite "cannot answer" at the end of a bounded loop (or of an empty web search).

The reason is logged for improvement (which loop hit its cap, with the counts) and returned
in ``escalation`` so that a chat app can hand the question to a person.
"""

from __future__ import annotations

import logging
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.text import messages
from graph.context import Context
from graph.state import RAGState, language_of, verdict
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def fallback_reason(state: RAGState, ctx: Context) -> str:
    """Which limit ended the run, in words."""
    if state.get("fallback_reason"):
        return str(state.get("fallback_reason"))
    if verdict(state, "hallucination") is False:
        return f"answer not grounded after {ctx.max_regenerations} regeneration(s)"
    if verdict(state, "answer_verdict") is False:
        return f"answer not useful after {ctx.max_answer_rewrites} rewrite(s)"
    if verdict(state, "context_verdict") is False:
        return f"no relevant context after {ctx.max_context_rewrites} rewrite(s)"
    return "no answer could be produced"


def make(c: Components) -> Node:
    async def fallback_answer(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        reason = fallback_reason(state, ctx)
        counts = {
            "context_failures": int(state.get("context_failures") or 0),
            "hallucination_failures": int(state.get("hallucination_failures") or 0),
            "answer_failures": int(state.get("answer_failures") or 0),
            "rewrites": int(state.get("rewrites") or 0),
        }
        log.warning(
            "fallback answer for request %s: %s %s (question: %r)",
            state.get("request_id"),
            reason,
            counts,
            (state.get("question") or "")[:200],
        )
        return {
            "answer": messages.pick(messages.FALLBACK, language_of(state)),
            "sources": [],
            "confidence": 0.0,
            "path": "none",  # no generator's answer reaches the user, whichever ran before the fallback
            "fallback_reason": reason,
            "escalation": {"reason": reason, "node": "fallback_answer", **counts},
        }

    return fallback_answer
