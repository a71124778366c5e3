"""Start of every run: reset the per-run state, settle the question and its scope, run the input rail.

A thread (checkpointer) keeps the previous run's state, so everything that belongs to one
question is reset here (``graph.state.run_reset``); ``messages`` is the only thing a thread
accumulates. The run's scope is settled here once, for every node after: ``top_k`` (the caller's,
else the Context's; checked) and ``collection`` (the Context's, else the COLLECTION setting).
The input rail (NeMo Guardrails running ``guardrails.input.check_input``: the
injection detector, the size limit and Presidio) decides allow, block or redact:

- block: a polite refusal in the question's language, and the run ends;
- redact (personal data found): from here on the run holds the redacted question, so the log,
  the cache, the thread and any remote LLM only see placeholders; the raw words stay in this
  process for retrieval (``nodes.rag.rails.for_retrieval``). The caller's own message is
  replaced in the thread by its redacted copy (same message id).

With an LLM configured, NeMo's self-check input rail asks the grader model too; a failure of that
call leaves the non-LLM verdict standing.

Search (``mode="search"``) skips the rail (``guardrails.policy``: ``block_search_queries``): it
runs no model and keeps nothing, it is searched for its own words, and its log line names a hash
of the query and its length.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import uuid
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import LLMUnavailable, QueryError, RAGError
from components.text import messages
from components.text.language import detect_language
from graph.context import Context
from graph.state import GuardrailVerdict, RAGState, question_of, run_reset
from guardrails import InputVerdict, refusal
from guardrails.policy import POLICY
from nodes.rag.common import log_error, use_llm
from nodes.rag.rails import RAW_QUESTIONS, rails_of
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)

SEARCH_UNCHECKED = "search runs no model and keeps nothing: not checked (guardrails.policy)"


def unchecked_digest(text: str) -> str:
    """What the log says of a text no rail has checked: a hash and the length, never the words."""
    return f"sha256:{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]} ({len(text)} characters)"


def run_scope(c: Components, state: RAGState, ctx: Context) -> dict[str, Any]:
    """What every node of the run reads instead of deriving it: the number of results or sources
    (``top_k``, 1 to 1000), how many results a search skips first (``offset``: ``top_k + offset`` at
    most 1000, the depth retrieval reads) and the collections it reads (the first is ``collection``)."""
    top_k = int(state.get("top_k") or ctx.top_k)
    if not 1 <= top_k <= 1000:
        raise QueryError(f"top_k must be between 1 and 1000, not {top_k}.")
    offset = int(state.get("offset") or 0) if state.get("mode") == "search" else 0
    if offset < 0 or top_k + offset > 1000:
        raise QueryError(f"offset must be 0 or more, with top_k + offset at most 1000 (not {top_k} + {offset}).")
    check_documents(state)
    collections = list(dict.fromkeys(ctx.collections)) or [ctx.collection or c.settings.collection]
    return {"top_k": top_k, "offset": offset, "collection": collections[0], "collections": collections}


def check_documents(state: RAGState) -> None:
    """Documents given with the question: Q&A only, each an object with a text, within the policy's size."""
    given = state.get("documents") or []
    if not given:
        return
    if state.get("mode") == "search":
        raise QueryError("documents are read by Q&A (mode 'qa'); a search reads the index only.")
    if not isinstance(given, list) or not all(isinstance(d, dict) for d in given):
        raise QueryError('documents must be a list of objects: [{"text": "...", "title": "...", "source": "..."}].')
    for i, d in enumerate(given, start=1):
        if not isinstance(d.get("text"), str) or not d["text"].strip():
            raise QueryError(f"document {i} has no text: give each document its text as a string.")
    chars = sum(len(d["text"]) for d in given)
    if chars > POLICY.max_given_document_chars:
        raise QueryError(
            f"the documents given hold {chars:,} characters, over the {POLICY.max_given_document_chars:,} one "
            "question may read; ingest them (`rag ingest`) and ask the index instead."
        )


def make(c: Components) -> Node:
    async def guard_input(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        scope = run_scope(c, state, ctx)
        raw = question_of(state)
        request_id = uuid.uuid4().hex[:12]
        language = detect_language(raw) if raw else "und"
        if state.get("mode") == "search" and not POLICY.block_search_queries:
            log.info("request %s: search query %s", request_id, unchecked_digest(raw))
            unchecked = GuardrailVerdict(allowed=True, category=None, reason=SEARCH_UNCHECKED, pii=[])
            return {
                **run_reset(),
                **scope,
                "request_id": request_id,
                "question": raw,
                "language": language,
                "guardrail": unchecked,
            }
        verdict = await rails_of(c).check_input(raw, language=language, refusal=refusal(None, language))
        notes: list[str] = []
        if verdict.allowed and raw and ctx.llm_input_check and use_llm(c, ctx, "grader", ctx.grader_model):
            verdict, note = await _self_check(c, ctx, state, verdict, verdict.redacted or raw, run=request_id)
            notes += note
        question = verdict.redacted if verdict.pii else raw
        if verdict.pii:
            RAW_QUESTIONS.remember(request_id, verdict, raw)
        out: dict[str, Any] = {
            **run_reset(),
            **scope,
            "request_id": request_id,
            "question": question,
            "language": language,
        }
        msgs = state.get("messages") or []
        last = msgs[-1] if msgs else None
        asked_in_messages = isinstance(last, HumanMessage) and isinstance(last.content, str) and last.content.strip()
        if question and state.get("mode") != "search":
            if asked_in_messages and last.content.strip() == raw:  # type: ignore[union-attr]
                if question != raw:  # the caller's message, replaced by its redacted copy (same id)
                    out["messages"] = [HumanMessage(content=question, id=last.id)]  # type: ignore[union-attr]
            else:
                out["messages"] = [HumanMessage(content=question)]
        out["guardrail"] = GuardrailVerdict(
            allowed=verdict.allowed,
            category=verdict.category,
            reason=verdict.reason,
            pii=sorted({e.kind for e in verdict.pii}),
        )
        log.info("request %s: %s", request_id, question[: POLICY.log_preview_chars])
        if not verdict.allowed:
            log.warning("request %s blocked by the input guardrail: %s", request_id, verdict.reason)
            notes.append(messages.QUESTION_BLOCKED.format(category=verdict.category))
            out.update(
                answer=refusal(verdict.category, language),
                route="blocked",
                escalation={"reason": f"input guardrail: {verdict.category}", "node": "guard_input"},
            )
        if notes:
            out["notes"] = notes
        return out

    return guard_input


async def _self_check(
    c: Components, ctx: Context, state: RAGState, verdict: InputVerdict, text: str, *, run: str
) -> tuple[InputVerdict, list[str]]:
    """NeMo's LLM self-check on an allowed question, under the LLM breaker and timeout."""
    rails = rails_of(c)
    try:
        llm = c.llm.get("grader", ctx.grader_model)
        allowed = await asyncio.wait_for(
            c.llm.guarded("grader", lambda: rails.self_check_input(text, llm), override=ctx.grader_model, run=run),
            timeout=c.settings.llm_timeout_for("grader"),
        )
    except (RAGError, TimeoutError) as e:
        log_error("llm", "guard_input", state, e)
        if isinstance(e, TimeoutError):  # the rest of this question goes without the LLM (run_budget)
            c.llm.budget.stall(run, f"the LLM input check timed out after {c.settings.llm_timeout_for('grader'):g} s")
        why = {LLMUnavailable: "the LLM is unavailable", TimeoutError: "the LLM timed out"}.get(
            type(e), "the LLM call failed"
        )
        return verdict, [messages.SELF_CHECK_FAILED.format(why=why)]
    if allowed:
        return verdict, []
    blocked = verdict.model_copy(
        update={"allowed": False, "category": "prompt_injection", "reason": "NeMo Guardrails' LLM self-check"}
    )
    return blocked, []
