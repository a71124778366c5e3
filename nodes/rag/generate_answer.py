"""Generation with numbered citations, by the LLM or, without one, by extraction.

The LLM (generator role) answers from the numbered passages in the question's language and
says 「情報が見つかりませんでした」 / "No information found" when they lack the answer. Its
tokens stream to ``stream_mode="messages"`` clients. After a failed hallucination check the
model is told which statements were unsupported. Without a reachable LLM (none configured,
server down, breaker open) the extractive path selects the passages' best supporting
sentences instead (components/heuristics/extractive.py). An LLM that errors (HTTP 500, timeout) is
retried by the node's retry policy, then the run ends with a generic error message.
"""

from __future__ import annotations

import asyncio
import logging
import re
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.heuristics.extractive import extract_answer
from components.resilience.errors import LLMError, LLMUnavailable, RAGError
from components.stores.examples import Example
from components.text import messages
from graph.context import Context
from graph.state import Passage, RAGState, Source, language_of, prior_turns
from nodes.rag import prompts
from nodes.rag.common import collections_of, log_error, numbered, run_of, term_idf, use_llm
from nodes.rag.failures import Fallback
from nodes.rag.rails import prompt_markers, raw_words, stream_screen
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)

CITATION = re.compile(r"\[(\d{1,3})\]")


def passages_of(state: RAGState) -> list[Passage]:
    """The generation context: parent passages, web passages, or the results themselves."""
    passages = list(state.get("passages") or [])
    if passages:
        return passages
    return [
        Passage(
            n=i,
            text=r.get("text") or "",
            doc_id=r.get("doc_id"),
            chunk_ids=[r.get("chunk_id")],
            source=r.get("source"),
            title=r.get("title"),
            section=" > ".join(r.get("section_hierarchy") or []),
            score=r.get("score"),
            links=list(r.get("links") or []),
        )
        for i, r in enumerate(state.get("results") or [], start=1)
    ]


def cited_sources(answer: str, passages: list[Passage]) -> list[Source]:
    """The passages the answer cites, numbered as in the answer."""
    cited = {int(n) for n in CITATION.findall(answer)}
    return [
        {
            "n": p["n"],
            "doc_id": p.get("doc_id"),
            "source": p.get("source"),
            "title": p.get("title"),
            "section": p.get("section") or "",
            "score": p.get("score"),
            "chunk_ids": p.get("chunk_ids") or [],
        }
        for p in passages
        if p["n"] in cited
    ]


def make(c: Components) -> Node:
    async def generate_answer(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = state.get("question") or ""
        lang = language_of(state)
        passages = passages_of(state)
        notes: list[str] = []
        stalled = (
            c.llm.budget.why_not(run_of(state))
            if ctx.use_llm and c.llm.configured("generator", ctx.generator_model)
            else ""
        )
        if stalled:  # an earlier LLM call of this question timed out: say why the answer is extractive
            notes.append(messages.ANSWERED_BY_EXTRACTION.format(why=stalled))
        elif use_llm(c, ctx, "generator", ctx.generator_model, state=state) and passages:
            try:
                examples = await asyncio.to_thread(_examples, c, ctx, state["collection"], question)
                answer = await _llm_answer(c, ctx, state, question, lang, passages, examples)
                used = [
                    {"feedback_id": e.feedback_id, "question": e.question, "similarity": round(e.similarity, 4)}
                    for e in examples
                ]
                return {"answer": answer, "sources": cited_sources(answer, passages), "path": "llm", "examples": used}
            except LLMUnavailable as e:  # down, breaker open, or this run gave up on it: answer without it, now
                log_error("llm", "generate_answer", state, e)
                notes.append(messages.LLM_UNAVAILABLE.format(error=e))
            except LLMError as e:
                if e.kind != "timeout":  # a bad reply may come out right on a retry
                    raise
                # a timeout: the run's other LLM calls are off (run_budget), so no retry could help
                log_error("llm", "generate_answer", state, e)
                notes.append(messages.LLM_TIMED_OUT.format(error=e))
        idf = await asyncio.to_thread(term_idf, c, state)
        ex = await asyncio.to_thread(
            extract_answer,
            raw_words(state, question),
            [p["text"] for p in passages],
            tokenize=c.tokenizer,
            idf=idf,
            language=lang,
            # the query encoder's vectors (what extraction was tuned on): the sentences' were stored
            # at ingestion (components/stores/sentences.py); the rest are embedded now and cached
            embed=c.sentences_of(collections_of(state)),
            links=[p.get("links") or [] for p in passages],
            titles=[p.get("title") or "" for p in passages],
        )
        return {
            "answer": ex.answer,
            "sources": cited_sources(ex.answer, passages),
            "path": "extractive",
            "notes": notes,
        }

    return generate_answer


def _examples(c: Components, ctx: Context, collection: str, question: str) -> list[Example]:
    """Answers this audience rated good for questions close to this one (none when turned off).

    A failure here costs only the examples: the answer does not depend on them.
    """
    if ctx.fewshot_max < 1 or ctx.fewshot_threshold >= 1.0:
        return []
    try:
        vector = c.embedder.encode_queries([question])[0]
        return c.examples(collection).similar(
            vector, audience=ctx.audience(), threshold=ctx.fewshot_threshold, limit=ctx.fewshot_max
        )
    except RAGError as e:
        log.warning("few-shot examples unavailable: %s", e)
        return []


async def _llm_answer(
    c: Components,
    ctx: Context,
    state: RAGState,
    question: str,
    lang: str,
    passages: list[Passage],
    examples: list[Example],
) -> str:
    system = ctx.generate_prompt.format(
        language_name=messages.LANGUAGE_NAMES.get(lang, "the question's language"),
        no_info=messages.pick(messages.NO_INFO, lang),
    )
    if examples:
        shown = "\n\n".join(
            prompts.FEWSHOT_EXAMPLE.format(question=e.question, answer=messages.strip_citations(e.answer))
            for e in examples
        )
        system += "\n" + prompts.FEWSHOT_BLOCK.format(examples=shown)
    # the passages are data: in the user's turn, delimited, never in the system prompt
    asked = prompts.GENERATE_USER.format(passages=numbered(_label(p) for p in passages), question=question)
    msgs: list[Any] = [SystemMessage(system), *prior_turns(state)[-4:], HumanMessage(asked)]
    h = state.get("hallucination")
    if h is not None and not h["grounded"]:
        unsupported = h["unsupported"]
        msgs.append(HumanMessage(prompts.REGENERATE_NOTE.format(unsupported="\n".join(f"- {u}" for u in unsupported))))
    screen = stream_screen([p["text"] for p in passages], prompt_markers(ctx))
    reply = await c.llm.generate("generator", msgs, override=ctx.generator_model, screen=screen, run=run_of(state))
    return str(reply.content).strip()


def _label(p: Passage) -> str:
    head = " / ".join(x for x in (p.get("title"), p.get("section")) if x)
    return f"({head})\n{p['text']}" if head else str(p["text"])


generation_failed = Fallback(
    breaker="llm", goto="fail_run", update=lambda why: {"fallback_reason": f"generation failed ({why})"}
)
"""The LLM failed after its retries: end the run with a generic message (a final timeout counts against the LLM)."""
