"""Parent documents: the sections around the relevant chunks, within a token budget.

Ingestion stores each chunk's parent section id and offsets; the section is rebuilt from its
chunks (components/retrieval/parents.py) so the generator sees whole paragraphs, not 800-character
cuts.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from langgraph.runtime import Runtime

from components.factory import Components
from components.retrieval.parents import expand_to_parents
from graph.context import Context
from graph.state import Passage, RAGState
from guardrails.documents import SCORE_KEY
from nodes.rag.rails import screen_passages
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def fetch_parents(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        results = list(state.get("results") or [])[: ctx.sources]
        verdict = state.get("context_verdict")
        ranks = set((verdict["ranks"] if verdict else None) or range(1, len(results) + 1))
        relevant = [r for i, r in enumerate(results, start=1) if i in ranks]
        collection = state["collection"]

        # injection scores of every chunk a passage may hold: the hits' and their siblings'
        scores: dict[str, float | None] = {str(r.get("chunk_id")): r.get("injection") for r in relevant}

        def fetch(parent_ids: list[str]) -> list[dict[str, Any]]:
            # one filtered scroll over the store's payload index on parent_id
            payloads = c.index(collection).chunks_by_parent(parent_ids)
            scores.update({str(pl.get("chunk_id")): pl.get(SCORE_KEY) for pl in payloads})
            return payloads

        built = await asyncio.to_thread(expand_to_parents, relevant, fetch, budget_tokens=ctx.parent_budget_tokens)
        passages = [cast(Passage, p.model_dump() if hasattr(p, "model_dump") else dict(vars(p))) for p in built]
        kept, notes = screen_passages(passages, [_score(p, scores) for p in passages])
        return {"passages": kept, "notes": notes}

    return fetch_parents


def _score(passage: Passage, scores: dict[str, float | None]) -> float | None:
    """A passage's injection score: its most suspicious chunk's (None when none was scored)."""
    known = [v for cid in passage.get("chunk_ids") or [] if (v := scores.get(str(cid))) is not None]
    return max(known) if known else None
