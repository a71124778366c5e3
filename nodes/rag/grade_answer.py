"""Answer grader: does the answer resolve the question? Writes a verdict and the confidence.

With an LLM (grader role) the model judges; without one, question-answer similarity does
(components/grading.grade_answer). "No information" answers are not useful, so the router
after this node sends the run back to rewrite (up to max_answer_rewrites) or to the fallback.

Confidence (0..1, in the output) is the geometric mean of the three verdict scores this run
produced: context relevance, grounding and usefulness. It is a ranking signal for callers
(route low-confidence answers to a human), not a calibrated probability of correctness.
"""

from __future__ import annotations

import math
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.heuristics import grading
from components.text.messages import NUMBERS_UNMET, pick
from graph.context import Context
from graph.state import AnswerVerdict, Passage, RAGState
from nodes.rag import prompts
from nodes.rag.common import count_failure, judge, term_idf
from nodes.rag.generate_answer import passages_of
from nodes.rag.rails import raw_words
from nodes.rag.schemas import AnswerGrade
from nodes.types import RAGNode as Node


def confidence(*scores: float | None) -> float:
    vals = [max(0.0, min(1.0, float(s))) for s in scores if s is not None]
    if not vals or min(vals) == 0.0:
        return 0.0
    return round(math.exp(sum(math.log(v) for v in vals) / len(vals)), 3)


def cited_passages(state: RAGState) -> list[Passage]:
    """The passages the answer's sources name."""
    cited = {s["n"] for s in state.get("sources") or []}
    return [p for p in passages_of(state) if p.get("n") in cited]


def make(c: Components) -> Node:
    async def grade_answer(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = state.get("question") or ""
        answer = state.get("answer") or ""

        def from_llm(g: AnswerGrade) -> AnswerVerdict:
            return {"useful": g.useful, "score": 1.0 if g.useful else 0.0, "reason": g.reason, "path": "llm"}

        def without_llm() -> AnswerVerdict:
            # the question's conditions (「2024年に書いた」, "tagged #rag") are the filters' job: an answer
            # about the topic need not repeat them, so usefulness is judged on the topic the analysis left
            topic = (state.get("analysis") or {}).get("search_text") or question
            a = grading.grade_answer(
                raw_words(state, topic),
                answer,
                embed=c.embedder.encode_queries,
                tokenize=c.tokenizer,
                idf=term_idf(c, state),
                calibration=c.calibration,
                threshold=ctx.answer_threshold,
                cited=cited_passages(state),
            )
            return {"useful": a.useful, "score": round(a.score, 4), "reason": a.reason, "path": "similarity"}

        verdict = await judge(
            c,
            ctx,
            state,
            node="grade_answer",
            role="grader",
            schema=AnswerGrade,
            messages=[
                SystemMessage(ctx.answer_grade_prompt),
                HumanMessage(prompts.ANSWER_GRADE_USER.format(question=question, answer=answer)),
            ],
            override=ctx.grader_model,
            from_llm=from_llm,
            without_llm=without_llm,
            ask=state.get("path") == "llm",
        )
        out: dict[str, Any] = {"answer_verdict": verdict, **count_failure(state, "answer_failures", verdict["useful"])}
        if verdict["useful"] and (unmet := grading.numbers_unmet(question, cited_passages(state))):
            numbers = ", ".join(unmet)
            out["notes"] = [pick(NUMBERS_UNMET, state.get("language") or "en").format(numbers=numbers)]
        context, hallucination = state.get("context_verdict"), state.get("hallucination")
        context_score = context["score"] if context else None
        grounding = hallucination["score"] if hallucination else None
        out["confidence"] = confidence(context_score, grounding, verdict["score"]) if verdict["useful"] else 0.0
        return out

    return grade_answer
