"""Context grader: are the retrieved chunks relevant to the question? Writes a verdict only.

With an LLM (grader role) the model names the relevant passages; without one, retrieval
evidence (dense similarity and question-term coverage) is mapped to a calibrated probability
(components/heuristics/grading.py). The router after this node reads the verdict: relevant → parent
documents; not relevant → rewrite (up to max_context_rewrites), web search when enabled,
else the fallback answer.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.heuristics import grading
from components.stores.points import chunk_point_id
from graph.context import Context
from graph.state import ContextVerdict, RAGState, Result
from nodes.rag import prompts
from nodes.rag.common import corpus_of, count_failure, judge, numbered
from nodes.rag.rails import raw_words
from nodes.rag.schemas import ContextGrade
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def grade_context(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = state.get("standalone_question") or state.get("question") or ""
        results = list(state.get("results") or [])[: ctx.sources]

        def from_llm(g: ContextGrade) -> ContextVerdict:
            ranks = sorted({n for n in g.relevant if 1 <= n <= len(results)})
            return {
                "relevant": bool(ranks),
                "score": len(ranks) / len(results),
                "reason": g.reason,
                "path": "llm",
                "ranks": ranks,
            }

        def without_llm() -> ContextVerdict:
            g = _calibrated(c, ctx, state, raw_words(state, question), results)
            ranks = [i + 1 for i, s in enumerate(g.chunk_scores) if s >= ctx.context_threshold]
            return {
                "relevant": g.score >= ctx.context_threshold,
                "score": round(g.score, 4),
                "reason": g.reason,
                "path": "calibrated",
                "ranks": ranks or [1],
            }

        verdict: ContextVerdict
        if not results:
            verdict = {"relevant": False, "score": 0.0, "reason": "no results", "path": "rules", "ranks": []}
        else:
            verdict = await judge(
                c,
                ctx,
                state,
                node="grade_context",
                role="grader",
                schema=ContextGrade,
                messages=[
                    SystemMessage(ctx.grade_context_prompt),
                    HumanMessage(
                        prompts.GRADE_CONTEXT_USER.format(
                            question=question, passages=numbered(r["text"] for r in results)
                        )
                    ),
                ],
                override=ctx.grader_model,
                from_llm=from_llm,
                without_llm=without_llm,
            )
        return {"context_verdict": verdict, **count_failure(state, "context_failures", verdict["relevant"])}

    return grade_context


def _calibrated(
    c: Components, ctx: Context, state: RAGState, question: str, results: list[Result]
) -> grading.ContextGrade:
    """The non-LLM verdict: dense similarity and idf-weighted term coverage, calibrated (see grading)."""
    qvec = c.embedder.encode_queries([question])[0]
    return grading.grade_context(
        question,
        with_stored_cosines(c, state["collection"], qvec, results),
        question_vector=qvec,
        embed=c.embedder.encode_documents,
        tokenize=c.tokenizer,
        idf=corpus_of(c, state).idf,
        calibration=c.calibration,
        threshold=ctx.context_threshold,
    )


def with_stored_cosines(c: Components, collection: str, qvec: np.ndarray, results: list[Result]) -> list[Result]:
    """Results where a chunk dense search did not return gets its cosine from its stored vector.

    The stored vector is the passage vector dense search compares against, so the cosine is
    the one dense search would have reported; reading it back costs one lookup where embedding
    the chunk again costs a forward pass per chunk (about 100 ms on a 2-core AVX2 machine). If
    the store cannot answer, the grader embeds the chunks itself.
    """
    top = results[: grading.CONTEXT_TOP]
    wanted: dict[str, dict[int, str]] = {}  # per collection: a result of several says its own
    for i, r in enumerate(top):
        if "dense" not in (r.get("retriever_scores") or {}) and r.get("chunk_id"):
            pid = chunk_point_id(str(r["chunk_id"]))
            if pid is not None:
                wanted.setdefault(str(r.get("collection") or collection), {})[i] = pid
    if not wanted:
        return results
    stored: dict[int, np.ndarray] = {}
    try:
        for name, ids in wanted.items():
            found = c.index(name).vectors(list(ids.values()))
            stored.update({i: found[pid] for i, pid in ids.items() if pid in found})
    except Exception as e:  # the vector store is down or slow: the grader re-embeds instead
        log.info("stored vectors unavailable for context grading (%s); embedding the chunks", type(e).__name__)
        return results
    out = list(results)
    for i in sorted(stored):
        v = stored.get(i)
        if v is not None:
            scores = {**(out[i].get("retriever_scores") or {}), "dense": float(v @ qvec)}
            out[i] = {**out[i], "retriever_scores": scores}
    return out
