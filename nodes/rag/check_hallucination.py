"""Hallucination check: is every statement of the answer supported by the passages?

With an LLM (grader role) the model lists unsupported statements; without one each answer
sentence must be close to a passage sentence (components/grading.check_support). Fixed
"no information" answers pass. The router after this node regenerates (up to
max_regenerations) or gives the fallback answer.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.heuristics import grading
from graph.context import Context
from graph.state import HallucinationVerdict, RAGState
from nodes.rag import prompts
from nodes.rag.common import count_failure, judge, numbered
from nodes.rag.generate_answer import passages_of
from nodes.rag.schemas import HallucinationGrade
from nodes.types import RAGNode as Node


def make(c: Components) -> Node:
    async def check_hallucination(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        answer = state.get("answer") or ""
        texts = [p["text"] for p in passages_of(state)]

        def from_llm(g: HallucinationGrade) -> HallucinationVerdict:
            return {
                "grounded": g.grounded,
                "score": 1.0 if g.grounded else 0.0,
                "path": "llm",
                "unsupported": list(g.unsupported),
            }

        def without_llm() -> HallucinationVerdict:
            threshold = c.calibration.support_cosine if ctx.support_threshold is None else ctx.support_threshold
            s = grading.check_support(
                answer, texts, embed=c.embedder.encode_queries, tokenize=c.tokenizer, threshold=threshold
            )
            return {
                "grounded": s.grounded,
                "score": round(s.score, 4),
                "unsupported": list(s.unsupported),
                "path": "sentence_support",
            }

        verdict = await judge(
            c,
            ctx,
            state,
            node="check_hallucination",
            role="grader",
            schema=HallucinationGrade,
            messages=[
                SystemMessage(ctx.hallucination_prompt),
                HumanMessage(prompts.HALLUCINATION_USER.format(passages=numbered(texts), answer=answer)),
            ],
            override=ctx.grader_model,
            from_llm=from_llm,
            without_llm=without_llm,
            # an extractive answer is checked by sentence support even when an LLM is configured
            ask=state.get("path") == "llm",
        )
        return {"hallucination": verdict, **count_failure(state, "hallucination_failures", verdict["grounded"])}

    return check_hallucination
