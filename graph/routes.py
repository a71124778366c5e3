"""Routers of the query graph: pure functions of state (and the run's caps), no model calls.

Each reads a verdict a node wrote and names the next node; loop caps come from the Context,
counters from state, so every exit is visible in Studio and testable without a model.
"""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from graph.context import Context
from graph.state import RAGState, prior_turns, verdict
from guardrails.pii import has_placeholder
from guardrails.policy import POLICY


def is_follow_up(state: RAGState) -> bool:
    """Whether the thread holds an answer before this question."""
    return any(m.type == "ai" for m in prior_turns(state))


def cache_text(state: RAGState) -> str:
    """What the semantic cache keys a run on: a first question as asked; a follow-up only by its
    standalone rewrite ('' when there is none: its raw words mean nothing outside the thread)."""
    if is_follow_up(state):
        return state.get("condensed_question") or ""
    return state.get("question") or ""


def _cache_allowed(state: RAGState, ctx: Context) -> bool:
    """Cache on, Q&A mode, and no personal data in the question unless the guardrail policy allows it."""
    guard = state.get("guardrail")
    return bool(
        ctx.cache
        and state.get("mode", "qa") == "qa"
        and state.get("question")
        and (POLICY.cache_answers_with_pii or not (guard and guard["pii"]))
    )


def cacheable(state: RAGState, ctx: Context) -> bool:
    """Whether the cache may answer (and keep) this run: allowed, and a text to key it on, which for a
    follow-up must not carry personal data redacted from the thread's earlier turns either."""
    text = cache_text(state)
    return (
        not state.get("documents")  # an answer from documents given with the question is theirs alone
        and _cache_allowed(state, ctx)
        and bool(text)
        and (POLICY.cache_answers_with_pii or not (is_follow_up(state) and has_placeholder(text)))
    )


def _ctx(runtime: Runtime[Context] | None) -> Context:
    return (runtime.context if runtime is not None else None) or Context()


def after_guard(state: RAGState) -> Literal["analyze_query", "finish_run"]:
    return "finish_run" if state.get("route") == "blocked" else "analyze_query"


def after_analysis(
    state: RAGState, runtime: Runtime[Context]
) -> Literal[
    "retrieve", "retrieve_collections", "list_documents", "check_cache", "condense_question", "route_question"
]:
    """Search goes to retrieval (several collections: one retrieval each, merged; a query of conditions
    alone: the listing); a question the cache may answer to the cache (a follow-up through its
    standalone rewrite first), any other past it."""
    if state.get("mode") == "search":
        if (state.get("analysis") or {}).get("structured"):
            return "list_documents"
        return retrieval(state)
    ctx = _ctx(runtime)
    if is_follow_up(state):
        return "condense_question" if _cache_allowed(state, ctx) else "route_question"
    return "check_cache" if cacheable(state, ctx) else "route_question"


def after_cache(state: RAGState) -> Literal["route_question", "finish_run"]:
    return "finish_run" if state.get("cache_hit") else "route_question"


def after_route(
    state: RAGState,
) -> Literal["rewrite_query", "list_documents", "search_web", "answer_directly", "read_documents"]:
    route = state.get("route")
    if route == "given_documents":
        return "read_documents"
    if route == "metadata_search":
        return "list_documents"
    if route == "web_search":
        return "search_web"
    if route == "direct_answer":
        return "answer_directly"
    return "rewrite_query"


def retrieval(state: RAGState) -> Literal["retrieve", "retrieve_collections"]:
    """One collection's retrieval, or one per collection merged when the run reads several."""
    return "retrieve_collections" if len(state.get("collections") or ()) > 1 else "retrieve"


def after_retrieval(state: RAGState) -> Literal["grade_context", "finish_run"]:
    return "finish_run" if state.get("mode") == "search" else "grade_context"


def after_context_grade(
    state: RAGState, runtime: Runtime[Context]
) -> Literal["fetch_parents", "rewrite_query", "search_web", "fallback_answer"]:
    ctx = _ctx(runtime)
    if verdict(state, "context_verdict"):
        return "fetch_parents"
    # corrective RAG: the web when it is on, else another phrasing, until the cap
    if ctx.web_search and (state.get("trace") or {}).get("web_available"):
        return "search_web"
    if int(state.get("context_failures") or 0) <= ctx.max_context_rewrites:
        return "rewrite_query"
    return "fallback_answer"


def after_reading(state: RAGState) -> Literal["generate_answer", "fallback_answer"]:
    """Web pages or the documents given with the question: an answer from what passed the screen."""
    return "generate_answer" if state.get("passages") else "fallback_answer"


def after_hallucination_check(
    state: RAGState, runtime: Runtime[Context]
) -> Literal["grade_answer", "generate_answer", "fallback_answer"]:
    if verdict(state, "hallucination") is not False:
        return "grade_answer"
    if int(state.get("hallucination_failures") or 0) <= _ctx(runtime).max_regenerations:
        return "generate_answer"
    return "fallback_answer"


def after_answer_grade(
    state: RAGState, runtime: Runtime[Context]
) -> Literal["guard_output", "rewrite_query", "fallback_answer"]:
    if verdict(state, "answer_verdict") is not False:
        return "guard_output"
    if state.get("route") in ("web_search", "given_documents"):  # another phrasing reads the same texts
        return "fallback_answer"
    if int(state.get("answer_failures") or 0) <= _ctx(runtime).max_answer_rewrites:
        return "rewrite_query"
    return "fallback_answer"
