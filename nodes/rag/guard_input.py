"""Start of every run: reset the per-run state, settle the question, run the input guardrail.

A thread (checkpointer) keeps the previous run's state, so everything that belongs to one
question is reset here (``graph.state.run_reset``); ``messages`` is the only thing a thread accumulates. Prompt
injection blocks the run with a polite refusal; personal data does not block, but the
verdict keeps the run from caching the answer or logging the raw question.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.text.language import detect_language
from graph.context import Context
from graph.state import GuardrailVerdict, RAGState, question_of, run_reset
from guardrails import check_input, refusal
from guardrails.policy import POLICY
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def guard_input(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        question = question_of(state)
        request_id = uuid.uuid4().hex[:12]
        out: dict[str, Any] = {**run_reset(), "request_id": request_id, "question": question}
        out["language"] = detect_language(question) if question else "und"
        msgs = state.get("messages") or []
        last = msgs[-1] if msgs else None
        if (
            question
            and state.get("mode") != "search"
            and not (
                isinstance(last, HumanMessage) and isinstance(last.content, str) and last.content.strip() == question
            )
        ):
            out["messages"] = [HumanMessage(content=question)]
        verdict = check_input(question)
        out["guardrail"] = GuardrailVerdict(
            allowed=verdict.allowed,
            category=verdict.category,
            reason=verdict.reason,
            pii=sorted({m.kind for m in verdict.pii}),
        )
        log.info("request %s: %s", request_id, verdict.redacted[: POLICY.log_preview_chars])
        if not verdict.allowed and (state.get("mode") != "search" or POLICY.block_search_queries):
            log.warning("request %s blocked by the input guardrail: %s", request_id, verdict.reason)
            out.update(
                answer=refusal(verdict.category, out["language"]),
                route="blocked",
                escalation={"reason": f"input guardrail: {verdict.category}", "node": "guard_input"},
                notes=[f"The question was blocked by the input guardrail ({verdict.category})."],
            )
        return out

    return guard_input
