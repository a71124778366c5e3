"""Web search: results become numbered passages for generation and both checks, in the provider's
order fused with rank-bm25's over the pages' words (``components.retrieval.in_memory``).

Taken when the router chose it or, as corrective RAG, when the index's context was not
relevant and web search is on. No results, an error or the 10 s timeout lead to the
fallback answer (the error handler below), never to an answer without sources.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import ServiceUnavailable
from components.retrieval import in_memory
from components.text import messages
from graph.context import Context
from graph.state import Passage, RAGState
from guardrails.documents import score_text, text_scan
from guardrails.policy import POLICY
from nodes.rag.failures import Fallback
from nodes.rag.rails import screen_passages
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def search_web(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        web = c.web
        if web is None:
            raise ServiceUnavailable("Web search is not configured: set WEB_SEARCH_PROVIDER and WEB_SEARCH_API_KEY.")
        query = state.get("standalone_question") or state.get("question") or ""
        async with c.breakers.guard("web_search"):
            results = await web.search(query, k=cast(int, state["top_k"]))  # settled by guard_input
        found = [r.model_dump() for r in results]
        # the provider's order fused with rank-bm25's over the pages' words, as the index reads words
        order = await asyncio.to_thread(lambda: in_memory.rank(query, [r["content"] for r in found], c.tokenizer))
        items = [found[i] for i in order]
        passages = [
            {
                "n": i,
                "text": r["content"],
                "doc_id": r["url"],
                "chunk_ids": [],
                "source": r["url"],
                "title": r["title"],
                "section": "",
                "score": r["score"],
                "parent_id": None,
            }
            for i, r in enumerate(items, start=1)
        ]
        # pages are written by anyone: each is scanned whole before it can reach a model
        scan = text_scan(c.embedder)
        scores = await asyncio.to_thread(lambda: [score_text(p["text"], scan=scan) for p in passages])
        kept, notes = screen_passages(
            [Passage(**p) for p in passages],  # type: ignore[typeddict-item]
            scores,
            threshold=POLICY.web_page_injection_threshold,
        )
        out: dict[str, Any] = {"web_results": items, "passages": kept, "route": "web_search", "notes": notes}
        if not kept:
            out["fallback_reason"] = "web search found nothing" if not passages else "every web page held instructions"
        return out

    return search_web


web_failed = Fallback(
    breaker="web_search",
    goto="fallback_answer",
    update=lambda why: {
        "fallback_reason": f"web search failed ({why})",
        "notes": [messages.WEB_SEARCH_FAILED.format(why=why)],
    },
)
"""Timeout or provider error: the fallback answer, with the reason kept for improvement."""
