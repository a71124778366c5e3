"""Router node: decides vector search, a listing by metadata, web search or a direct answer, and writes why.

A question that came with documents (pasted into a chat, ``documents`` in the input) is answered
from them (``given_documents``); no router is asked.

A question query analysis marked ``structured`` (conditions on documents and nothing else: 「2025年に
書いた #料理 のメモは？」) goes to the metadata route whichever router spoke; the LLM router may send
other questions there too, when the run has filters to list by.

With an LLM the router model decides (structured output); without one, or when its breaker
is open, the question's embedding is compared with route exemplars (components/heuristics/routing.py),
which prefers vector search unless another route wins clearly. Web search chosen while it is
switched off becomes vector search, with a note.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.heuristics.analysis import about_the_user
from components.resilience.errors import RAGError
from components.retrieval.filters import SearchFilters
from components.text import messages
from graph.context import Context
from graph.state import RAGState, previous_question
from nodes.rag.common import judge
from nodes.rag.rails import raw_words
from nodes.rag.schemas import RouteDecision
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def web_enabled(c: Components, ctx: Context) -> bool:
    return ctx.web_search and c.web is not None


def _route_by_exemplars(c: Components, question: str, previous: str) -> tuple[str, str]:
    """The embedding router; a short follow-up ("And in winter?") is routed with the question
    before it, since on its own it looks like chit-chat."""
    decision = c.router.route(question)
    if decision.route != "vector_search" and previous:
        joined = c.router.route(f"{previous} {question}")
        if joined.route == "vector_search":
            return joined.route, f"follow-up of a document question ({joined.reason})"
    return decision.route, decision.reason


def _has_conditions(state: RAGState) -> bool:
    """Whether the run has filters to list documents by (from the question, the caller or the profile)."""
    try:
        return not SearchFilters.parse(state.get("search_filters")).is_empty()
    except RAGError:
        return False


def make(c: Components) -> Node:
    async def route_question(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = state.get("question") or ""
        given = len(state.get("documents") or [])
        if given:  # the question is about the documents that came with it: no router need guess
            return {"route": "given_documents", "route_reason": f"rules: asked with {given} document(s)", "notes": []}
        route, reason, path = await judge(
            c,
            ctx,
            state,
            node="route_question",
            role="router",
            schema=RouteDecision,
            messages=[SystemMessage(ctx.route_prompt), HumanMessage(question)],
            override=ctx.router_model,
            from_llm=lambda d: (d.route, d.reason, "llm"),
            without_llm=lambda: (
                *_route_by_exemplars(c, raw_words(state, question), previous_question(state)),
                "embedding",
            ),
        )
        notes: list[str] = []
        if route == "direct_answer" and about_the_user(raw_words(state, question)):
            # "How far did I run?" reads like small talk to the exemplars, but the user's notes may
            # answer it; and without a model the direct route can only say that it needs one
            route, reason = "vector_search", f"about the user's own notes or life ({reason})"
        if (state.get("analysis") or {}).get("structured"):
            # the rules found conditions and nothing else: exact, so they win over either router
            route, reason = "metadata_search", f"the question only states conditions on documents ({reason})"
        elif route == "metadata_search" and not _has_conditions(state):
            route, reason = "vector_search", f"no conditions to list documents by ({reason})"
        if route == "web_search" and not web_enabled(c, ctx):
            notes.append(messages.WEB_SEARCH_OFF)
            route, reason = "vector_search", f"web search is off ({reason})"
        return {
            "route": route,
            "route_reason": f"{path}: {reason}",
            "notes": notes,
            "trace": {"web_available": web_enabled(c, ctx)},
        }

    return route_question
