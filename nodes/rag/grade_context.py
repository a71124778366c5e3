"""Context grader: are the retrieved chunks relevant to the question? Writes a verdict only.

With an LLM (grader role) the model names the relevant passages; without one, retrieval
evidence (dense similarity and question-term coverage) is mapped to a calibrated probability
(components/grading.py). The router after this node reads the verdict: relevant → parent
documents; not relevant → rewrite (up to max_context_rewrites), web search when enabled,
else the fallback answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components import grading
from components.factory import Components
from graph.context import Context
from graph.state import RAGState
from nodes.rag import prompts
from nodes.rag.common import ask_llm, numbered
from nodes.rag.schemas import ContextGrade
from nodes.types import RAGNode as Node


def make(c: Components) -> Node:
    async def grade_context(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = state.get("standalone_question") or state.get("question") or ""
        results = list(state.get("results") or [])[: ctx.sources]
        verdict: dict[str, Any]
        if not results:
            verdict = {"relevant": False, "score": 0.0, "reason": "no results", "path": "rules", "ranks": []}
        else:
            g = await ask_llm(
                c,
                ctx,
                state,
                node="grade_context",
                role="grader",
                schema=ContextGrade,
                messages=[
                    SystemMessage(prompts.GRADE_CONTEXT_SYSTEM),
                    HumanMessage(f"Question: {question}\n\nPassages:\n{numbered(r['text'] for r in results)}"),
                ],
                override=ctx.grader_model,
            )
            if g is not None:
                ranks = sorted({n for n in g.relevant if 1 <= n <= len(results)})
                verdict = {
                    "relevant": bool(ranks),
                    "score": len(ranks) / len(results),
                    "reason": g.reason,
                    "path": "llm",
                    "ranks": ranks,
                }
            else:
                g2 = await asyncio.to_thread(_calibrated, c, ctx, question, results)
                ranks = [i + 1 for i, s in enumerate(g2.chunk_scores) if s >= ctx.context_threshold]
                verdict = {
                    "relevant": g2.score >= ctx.context_threshold,
                    "score": round(g2.score, 4),
                    "reason": g2.reason,
                    "path": "calibrated",
                    "ranks": ranks or [1],
                }
        out: dict[str, Any] = {"context_verdict": verdict}
        if not verdict["relevant"]:
            out["context_failures"] = int(state.get("context_failures") or 0) + 1
        return out

    return grade_context


def _calibrated(c: Components, ctx: Context, question: str, results: list[dict[str, Any]]) -> grading.ContextGrade:
    """The non-LLM verdict: dense similarity and idf-weighted term coverage, calibrated (see grading)."""
    return grading.grade_context(
        question,
        results,
        question_vector=c.embedder.encode_queries([question])[0],
        embed=c.embedder.encode_documents,
        tokenize=c.tokenizer,
        idf=c.bm25(ctx.collection or None).idf,
    )
