"""End of every run: warnings, the answer as an AIMessage, the cache, debug details.

Chat clients (Studio, LangGraph chat UIs) read the thread's ``messages``; the answer is
appended there with its sources, route, path and confidence in ``response_metadata``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import RAGError
from graph.context import Context
from graph.routes import cache_text, cacheable
from graph.state import RAGState, input_reset, verdict
from nodes.rag.check_cache import cache_scope
from nodes.rag.common import log_error
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)

CACHED_KEYS = ("answer", "sources", "confidence", "path", "route", "route_reason")


def make(c: Components) -> Node:
    async def finish_run(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        out: dict[str, Any] = {"warnings": list(dict.fromkeys(state.get("notes") or [])), **input_reset()}
        if state.get("debug"):
            out["debug_info"] = {
                **(state.get("debug_info") or {}),
                **(state.get("trace") or {}),
                "steps": state.get("steps") or [],
                "analysis": state.get("analysis") or {},
                "context_verdict": state.get("context_verdict") or {},
                "hallucination": state.get("hallucination") or {},
                "answer_verdict": state.get("answer_verdict") or {},
                "rewrites": state.get("rewrites") or 0,
                "request_id": state.get("request_id"),
            }
        if state.get("mode") == "search":
            return out
        answer = state.get("answer") or ""
        keys = ("sources", "route", "path", "confidence", "escalation", "cache_hit", "request_id")
        meta = {k: state.get(k) for k in keys}
        # which corpus the answer came from: feedback on it is marked once the index moves on
        meta["index_version"] = (state.get("trace") or {}).get("index_version")
        out["messages"] = [AIMessage(content=answer, response_metadata=meta)]
        if _worth_caching(state, ctx):
            value = {k: state.get(k) for k in CACHED_KEYS}

            def store() -> None:
                text = cache_text(state)
                vector = c.embedder.encode_queries([text])[0]
                c.cache.store(vector, scope=cache_scope(c, state, ctx), question=text, value=value)

            try:
                await asyncio.to_thread(store)
            except RAGError as e:
                log_error("cache", "finish_run", state, e)
        return out

    return finish_run


def _worth_caching(state: RAGState, ctx: Context) -> bool:
    """Grounded, useful answers the cache may key (first questions, condensed follow-ups); never
    refusals, fallbacks or errors."""
    return (
        cacheable(state, ctx)
        and not state.get("cache_hit")
        and state.get("path") in ("llm", "extractive")
        and not state.get("escalation")
        and bool(verdict(state, "answer_verdict"))
        and state.get("route") == "vector_search"
    )
