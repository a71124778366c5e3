"""Error end: a generic message with the request id; the details are in the log, not in the answer."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.text import messages
from graph.context import Context
from graph.state import RAGState, language_of
from nodes.types import RAGNode as Node


def make(c: Components) -> Node:
    async def fail_run(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        rid = state.get("request_id") or "-"
        return {
            "answer": messages.pick(messages.ERROR_MESSAGE, language_of(state)).format(request_id=rid),
            "sources": [],
            "confidence": 0.0,
            "path": "none",
            "escalation": {"reason": state.get("fallback_reason") or "error", "node": "fail_run", "request_id": rid},
        }

    return fail_run
