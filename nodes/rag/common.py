"""Helpers shared by the query-graph nodes."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage

from graph.state import RAGState


def question_of(state: RAGState) -> str:
    """The explicit question, else the last human message (chat clients send only messages)."""
    q = (state.get("question") or "").strip()
    if q:
        return q
    for m in reversed(state.get("messages") or []):
        if isinstance(m, HumanMessage) and isinstance(m.content, str):
            return m.content.strip()
    return ""


def hit_to_result(rank: int, payload: dict[str, Any], score: float, **extra: Any) -> dict[str, Any]:
    """A search result as users see it; missing metadata shows as None, never a crash."""
    idx, total = payload.get("chunk_index"), payload.get("total_chunks")
    return {
        "rank": rank,
        "score": round(score, 6),
        "chunk_id": payload.get("chunk_id"),
        "doc_id": payload.get("doc_id"),
        "text": payload.get("text") or "",
        "source": payload.get("source"),
        "title": payload.get("title"),
        "section_hierarchy": payload.get("section_hierarchy") or [],
        "chunk": f"{idx + 1} of {total}" if isinstance(idx, int) and isinstance(total, int) else None,
        "vault": payload.get("vault"),
        "tags": payload.get("tags") or [],
        "created": payload.get("created"),
        "modified": payload.get("modified"),
        "language": payload.get("language"),
        "parent_id": payload.get("parent_id"),
        **extra,
    }
