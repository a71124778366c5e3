"""Query rewrite before retrieval, and again when a grader sent the run back.

With an LLM (rewriter role): a standalone question resolving follow-ups against the thread,
and with HyDE a hypothetical answer whose embedding drives dense retrieval while BM25 gets
the rewritten question. A follow-up the cache may answer is rewritten earlier, by
``condense_question`` before ``check_cache``, so that the cache is keyed on the standalone
question; the first pass here then reuses that rewrite instead of asking again.

Without an LLM: a follow-up is searched both as asked and joined to the previous question; a
retry expands the BM25 query by pseudo-relevance feedback (terms of the best BM25 chunks), and
a later retry also drops the filters read from the question, in case they were what emptied
the context.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import RAGError
from components.retrieval.prf import expand_query
from components.text import messages
from components.text.language import detect_language
from graph.context import Context
from graph.state import RAGState, previous_question, prior_turns, verdict
from nodes.rag import prompts
from nodes.rag.common import corpus_of, log_error, run_filters, run_of, use_llm
from nodes.rag.rails import raw_words
from nodes.rag.schemas import Rewrite
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def retry_reason(state: RAGState) -> str:
    """Why the run came back here ('' on the first pass)."""
    if verdict(state, "answer_verdict") is False:
        return "the answer did not resolve the question"
    if verdict(state, "context_verdict") is False:
        return "the retrieved context was not relevant"
    return ""


def make(c: Components) -> Node:
    async def rewrite_query(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = state.get("question") or ""
        base = (state.get("analysis") or {}).get("search_text") or question
        reason = retry_reason(state)
        rewrites = int(state.get("rewrites") or 0) + (1 if reason else 0)
        history = prior_turns(state)
        out: dict[str, Any] = {"rewrites": rewrites, "answer_verdict": None, "context_verdict": None}
        condensed = state.get("condensed_question") or ""
        if condensed and not reason:  # condense_question asked the rewriter already this run
            translated = [t for t in [state.get("translated_question") or ""] if t]
            out.update(standalone_question=condensed, queries=[condensed, *translated])
            dense = list(state.get("dense_queries") or [])
            out["dense_queries"] = [*dense, *translated] if dense else []
            out["trace"] = {"rewrite_path": "llm", "hyde": bool(out["dense_queries"]), "condensed": True}
            return out
        if use_llm(c, ctx, "rewriter", ctx.rewriter_model, state=state) and (history or ctx.hyde or reason):
            try:
                r = await _llm_rewrite(c, ctx, state, question, history, reason)
                standalone = r.question.strip() or base
                translated = _translation(r, standalone)
                hyde = _hyde(ctx, r)
                out.update(
                    standalone_question=standalone,
                    queries=[standalone, *translated],
                    dense_queries=[*hyde, *translated] if hyde else [],
                    translated_question=translated[0] if translated else "",
                )
                out["trace"] = {"rewrite_path": "llm", "hyde": bool(hyde), "translated": bool(translated)}
                return out
            except RAGError as e:
                log_error("llm", "rewrite_query", state, e)
        prev = previous_question(state)
        queries = [base]
        if prev and not reason:
            queries.append(f"{prev} {base}")
        out.update(standalone_question=base, queries=queries, dense_queries=[], trace={"rewrite_path": "rules"})
        if reason:
            out.update(await asyncio.to_thread(_expand, c, ctx, state, base, rewrites))
        return out

    return rewrite_query


def make_condense(c: Components) -> Node:
    """The ``condense_question`` node: a follow-up made standalone before the cache is asked."""

    async def condense_question(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        history = prior_turns(state)
        # without an LLM there is no standalone question (the rules only join the previous one),
        # so the cache is skipped: a follow-up's own words mean nothing outside its thread
        if not history or not use_llm(c, ctx, "rewriter", ctx.rewriter_model, state=state):
            return {}
        try:
            r = await _llm_rewrite(c, ctx, state, state.get("question") or "", history, "")
        except RAGError as e:  # rewrite_query tries again on its own turn; the cache is skipped
            log_error("llm", "condense_question", state, e)
            return {}
        standalone = r.question.strip()
        if not standalone:
            return {}
        translated = _translation(r, standalone)
        return {
            "condensed_question": standalone,
            "dense_queries": _hyde(ctx, r),
            "translated_question": translated[0] if translated else "",
        }

    return condense_question


def _hyde(ctx: Context, r: Rewrite) -> list[str]:
    """HyDE's hypothetical answer as the dense query, when HyDE is on and the rewriter wrote one."""
    return [r.hypothetical_answer.strip()] if ctx.hyde and r.hypothetical_answer.strip() else []


def _translation(r: Rewrite, standalone: str) -> list[str]:
    """The rewriter's translation as a second phrasing, when it is one (in the other language)."""
    t = r.translation.strip()
    asked = detect_language(standalone)
    return [t] if t and asked in OTHER_LANGUAGE and detect_language(t) == OTHER_LANGUAGE[asked][0] else []


async def _llm_rewrite(
    c: Components, ctx: Context, state: RAGState, question: str, history: list[AnyMessage], reason: str
) -> Rewrite:
    system = ctx.rewrite_prompt.format(
        hyde_instruction=prompts.HYDE_INSTRUCTION if ctx.hyde else prompts.NO_HYDE_INSTRUCTION,
        translation_instruction=await asyncio.to_thread(_translation_instruction, c, state, question),
    )
    msgs: list[Any] = [SystemMessage(system), *history[-6:], HumanMessage(question)]
    if reason:
        previous = state.get("standalone_question") or question
        msgs.append(HumanMessage(prompts.REWRITE_RETRY.format(previous=previous, reason=reason)))
    return await c.llm.structured("rewriter", Rewrite, msgs, override=ctx.rewriter_model, run=run_of(state))


#: a question's language → the other language the notes may be in: (code, name the prompt uses)
OTHER_LANGUAGE = {"ja": ("en", "English"), "en": ("ja", "Japanese")}


def _translation_instruction(c: Components, state: RAGState, question: str) -> str:
    """Ask for a translation only when the index holds both languages: BM25 cannot match a
    Japanese question with an English note, and a translated phrasing can (decision 0015)."""
    other = OTHER_LANGUAGE.get(detect_language(question))
    try:
        held = corpus_of(c, state).languages
    except Exception:  # the index unreadable: retrieval will say so; the rewrite goes on without
        held = frozenset()
    if other is None or other[0] not in held:
        return prompts.NO_TRANSLATION_INSTRUCTION
    return prompts.TRANSLATION_INSTRUCTION.format(other_language=other[1])


def _expand(c: Components, ctx: Context, state: RAGState, base: str, attempt: int) -> dict[str, Any]:
    """Non-LLM retry: PRF-expanded BM25 query (dense keeps the question); from attempt 2 no question filters."""
    out: dict[str, Any] = {}
    filters = dict(state.get("search_filters") or {})
    found = (state.get("analysis") or {}).get("filters_from_question") or {}
    if attempt >= 2 and found:
        filters = {k: v for k, v in filters.items() if k not in found}
        out["search_filters"] = filters
        out["notes"] = [messages.RETRIED_WITHOUT_FILTERS.format(filters=", ".join(sorted(found)))]
    corpus = corpus_of(c, state)
    where = run_filters(c, state, ctx, filters).conditions()
    # feedback comes from the chunks the question's own words find; the state keeps placeholders
    raw = raw_words(state, base)
    exp = expand_query(raw, corpus=corpus, tokenizer=c.tokenizer, fb_docs=3 + 2 * attempt, where=where)
    if exp.terms:
        out.update(queries=[exp.text.replace(raw, base)], dense_queries=[base])
    out["trace"] = {"rewrite_path": "prf", "prf_terms": exp.terms}
    return out
