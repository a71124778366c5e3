"""Hallucination check: is every statement of the answer supported by the passages?

With an LLM (grader role) the model lists unsupported statements; without one each answer
sentence must be close to a passage sentence (components/grading.check_support). Fixed
"no information" answers pass. The router after this node regenerates (up to
max_regenerations) or gives the fallback answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.heuristics import grading
from graph.context import Context
from graph.state import RAGState
from nodes.rag import prompts
from nodes.rag.common import ask_llm, numbered
from nodes.rag.generate_answer import passages_of
from nodes.rag.schemas import HallucinationGrade
from nodes.types import RAGNode as Node


def make(c: Components) -> Node:
    async def check_hallucination(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        answer = state.get("answer") or ""
        texts = [p["text"] for p in passages_of(state)]
        verdict: dict[str, Any]
        g = None
        if state.get("path") == "llm":
            g = await ask_llm(
                c,
                ctx,
                state,
                node="check_hallucination",
                role="grader",
                schema=HallucinationGrade,
                messages=[
                    SystemMessage(prompts.HALLUCINATION_SYSTEM.format(passages=numbered(texts))),
                    HumanMessage(f"Answer: {answer}"),
                ],
                override=ctx.grader_model,
            )
        if g is not None:
            verdict = {
                "grounded": g.grounded,
                "score": 1.0 if g.grounded else 0.0,
                "path": "llm",
                "unsupported": list(g.unsupported),
            }
        else:
            s = await asyncio.to_thread(
                grading.check_support,
                answer,
                texts,
                embed=c.embedder.encode_queries,
                tokenize=c.tokenizer,
                threshold=ctx.support_threshold,
            )
            verdict = {
                "grounded": s.grounded,
                "score": round(s.score, 4),
                "unsupported": list(s.unsupported),
                "path": "sentence_support",
            }
        out: dict[str, Any] = {"hallucination": verdict}
        if not verdict["grounded"]:
            out["hallucination_failures"] = int(state.get("hallucination_failures") or 0) + 1
        return out

    return check_hallucination
