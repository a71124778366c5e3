"""Direct answer for chit-chat and general questions: the LLM replies without documents.

Without a reachable LLM there is nothing honest to say but that a model is needed; the
response says so (path "none") instead of pretending with an extract.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import LLMUnavailable
from components.text import messages
from graph.context import Context
from graph.state import RAGState, language_of, prior_turns
from nodes.rag.common import log_error, run_of, use_llm
from nodes.rag.rails import prompt_markers, stream_screen
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def answer_directly(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        lang = language_of(state)
        if use_llm(c, ctx, "generator", ctx.generator_model, state=state):
            system = ctx.direct_prompt.format(language_name=messages.LANGUAGE_NAMES.get(lang, "the user's language"))
            msgs: list[Any] = [
                SystemMessage(system),
                *prior_turns(state)[-6:],
                HumanMessage(state.get("question") or ""),
            ]
            try:
                screen = stream_screen((), prompt_markers(ctx))
                reply = await c.llm.generate(
                    "generator", msgs, override=ctx.generator_model, screen=screen, run=run_of(state)
                )
                return {"answer": str(reply.content).strip(), "path": "llm", "sources": [], "confidence": 1.0}
            except LLMUnavailable as e:
                log_error("llm", "answer_directly", state, e)
        return {
            "answer": messages.pick(messages.NEEDS_MODEL, lang),
            "path": "none",
            "sources": [],
            "confidence": 0.0,
            "escalation": {"reason": "direct answer needs a language model", "node": "answer_directly"},
        }

    return answer_directly
