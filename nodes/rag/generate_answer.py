"""Answer from the retrieved chunks with numbered citations (extractive path)."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from components.extractive import extract_answer
from components.factory import Components
from graph.context import Context
from graph.state import RAGState
from nodes.types import RAGNode as Node


def sources_of(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "n": i + 1,
            "doc_id": r["doc_id"],
            "source": r["source"],
            "title": r["title"],
            "section": " > ".join(r["section_hierarchy"]),
            "score": r["score"],
            "chunk_id": r["chunk_id"],
        }
        for i, r in enumerate(results)
    ]


def make(c: Components) -> Node:
    async def generate_answer(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        results = [r for r in state.get("results") or [] if "text" in r]
        bm25 = await asyncio.to_thread(c.bm25, ctx.collection or None)
        ex = extract_answer(
            state.get("question") or "",
            [r["text"] for r in results],
            tokenize=c.tokenizer,
            idf=bm25.idf,
            language=state.get("language") or "en",
        )
        sources = [s for s in sources_of(results) if s["n"] in ex.used_sources]
        return {
            "answer": ex.answer,
            "sources": sources,
            "confidence": ex.confidence,
            "path": "extractive",
            "messages": [AIMessage(content=ex.answer, response_metadata={"sources": sources})],
        }

    return generate_answer
