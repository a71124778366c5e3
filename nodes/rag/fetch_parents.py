"""Parent documents: the sections around the relevant chunks, within a token budget.

Ingestion stores each chunk's parent section id and offsets; the section is rebuilt from its
chunks (components/retrieval/parents.py) so the generator sees whole paragraphs, not 800-character
cuts. Passages of different documents that give one thing different values ("80 grams" in the 2024
note, "70 grams" in its 2026 revision) are named in a warning, the newer said to be so.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from langgraph.runtime import Runtime

from components.factory import Components
from components.heuristics import contradictions
from components.retrieval.parents import expand_to_parents
from components.text import messages
from components.text.sentences import split_sentences
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
        # a section is read from the collection its hit came from (results of several name theirs)
        home = {str(r.get("parent_id")): str(r.get("collection") or state["collection"]) for r in relevant}

        # injection scores of every chunk a passage may hold: the hits' and their siblings'
        scores: dict[str, float | None] = {str(r.get("chunk_id")): r.get("injection") for r in relevant}

        def fetch(parent_ids: list[str]) -> list[dict[str, Any]]:
            # one filtered scroll over the store's payload index on parent_id, per collection
            wanted: dict[str, list[str]] = {}
            for pid in parent_ids:
                wanted.setdefault(home.get(pid, state["collection"]), []).append(pid)
            payloads = [pl for name, ids in wanted.items() for pl in c.index(name).chunks_by_parent(ids)]
            scores.update({str(pl.get("chunk_id")): pl.get(SCORE_KEY) for pl in payloads})
            return payloads

        built = await asyncio.to_thread(expand_to_parents, relevant, fetch, budget_tokens=ctx.parent_budget_tokens)
        passages = [cast(Passage, p.model_dump() if hasattr(p, "model_dump") else dict(vars(p))) for p in built]
        kept, notes = screen_passages(passages, [_score(p, scores) for p in passages])
        dates = {str(r.get("doc_id")): r.get("created") for r in relevant}
        # the tokenizer may load its dictionary on first use: off the event loop too
        notes += await asyncio.to_thread(lambda: disagreements(kept, dates, c.tokenizer))
        return {"passages": kept, "notes": notes}

    return fetch_parents


def disagreements(passages: list[Passage], dates: dict[str, Any], tokenize: Any) -> list[str]:
    """A warning for each pair of documents in the context that give one thing different values
    (``components.heuristics.contradictions``), the older named first and the newer said to be so."""
    by_doc: dict[str, list[str]] = {}
    titles: dict[str, str] = {}
    for p in passages:
        doc = str(p.get("doc_id"))
        by_doc.setdefault(doc, []).extend(split_sentences(p.get("text") or ""))
        titles.setdefault(doc, str(p.get("title") or p.get("source") or "a document"))
    if len(by_doc) < 2:
        return []
    out = []
    for found in contradictions.find(list(by_doc.items()), tokenize):
        first, second = (found.first, found.second)
        values = {found.first: found.first_value, found.second: found.second_value}
        when = {d: str(dates.get(d) or "")[:10] for d in (first, second)}
        if when[first] and when[second] and when[first] > when[second]:
            first, second = second, first
        newer = (
            f"; the newer is {titles[second]!r}" if when[first] and when[second] and when[first] != when[second] else ""
        )

        def named(doc: str, when: dict[str, str] = when) -> str:
            return f"{titles[doc]!r}" + (f" ({when[doc]})" if when[doc] else "")

        out.append(
            messages.SOURCES_DISAGREE.format(
                first=named(first),
                first_value=values[first],
                second=named(second),
                second_value=values[second],
                newer=newer,
            )
        )
    return out


def _score(passage: Passage, scores: dict[str, float | None]) -> float | None:
    """A passage's injection score: its most suspicious chunk's (None when none was scored)."""
    known = [v for cid in passage.get("chunk_ids") or [] if (v := scores.get(str(cid))) is not None]
    return max(known) if known else None
