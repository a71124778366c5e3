"""Parent documents: expand the chunks retrieval found into the sections they came from.

Small chunks retrieve precisely; the generator answers better from the whole section around
them (the step before the hit, the caveat after it). Each chunk's payload names its section
(``parent_id``) and where inside the section's text it starts and ends, so the section can
be rebuilt from its overlapping chunks without storing it twice.

The context handed to the generator has a token budget. Sections are taken in rank order:
the whole section when it fits what is left, else a window of it centred on the hit(s) and
cut at sentence ends, else the hit chunk alone; the expansion stops when the budget is spent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field

from components.ingestion.chunker import stitch_parent
from components.text.language import estimate_tokens
from components.text.sentences import split_sentences

log = logging.getLogger(__name__)

#: a hole this long between two stored chunks is a missing chunk, not stripped whitespace


class Passage(BaseModel):
    """One numbered piece of context for generation, citable as [n]."""

    n: int = Field(ge=1, description="Citation number, 1-based, in rank order.")
    text: str = Field(description="The section, a window of it, or the chunk.")
    doc_id: str
    chunk_ids: list[str] = Field(description="The retrieved chunks this passage covers, best first.")
    source: str = ""
    title: str = ""
    section: str = Field(default="", description="Heading path, 'A > B'.")
    score: float = Field(description="Best score among the passage's chunks.")
    parent_id: str | None = None
    extent: Literal["parent", "window", "chunk"] = Field(
        default="chunk", description="How much of the parent section the text covers."
    )
    links: list[str] = Field(default_factory=list, description="The notes its document links to ([[wikilinks]]).")


# ------------------------------------------------------------------ stitching


# ------------------------------------------------------------------ expansion


def _window(parent: str, spans: list[tuple[int, int]], budget: int, count_tokens: Callable[[str], int]) -> str | None:
    """The largest run of whole sentences around ``spans`` within ``budget`` tokens, or None.

    Grows one sentence at a time, alternately before and after the hits, so the window stays
    centred on them.
    """
    sentences = split_sentences(parent)
    bounds = [0]
    for s in sentences:
        bounds.append(bounds[-1] + len(s))
    lo_pos = min(s for s, _ in spans)
    hi_pos = max(e for _, e in spans)
    i = max(k for k, b in enumerate(bounds) if b <= lo_pos)
    j = min((k for k, b in enumerate(bounds) if b >= hi_pos), default=len(bounds) - 1)
    costs = [count_tokens(s) for s in sentences]
    used = sum(costs[i:j])
    if used > budget:
        return None
    grew = True
    while grew:
        grew = False
        if i > 0 and used + costs[i - 1] <= budget:
            i -= 1
            used += costs[i]
            grew = True
        if j < len(sentences) and used + costs[j] <= budget:
            used += costs[j]
            j += 1
            grew = True
    return parent[bounds[i] : bounds[j]].strip()


def expand_to_parents(
    results: Sequence[Mapping[str, Any]],
    fetch: Callable[[list[str]], list[dict[str, Any]]],
    *,
    budget_tokens: int = 3000,
    count_tokens: Callable[[str], int] = estimate_tokens,
) -> list[Passage]:
    """Numbered passages for the generator: one per distinct parent section, in rank order.

    ``results`` are search results, best first (``text``, ``chunk_id``, ``doc_id``,
    ``source``, ``title``, ``section_hierarchy``, ``parent_id``, ``score``); ``fetch`` returns
    the chunk payloads of the given parent ids (``QdrantIndex.chunks_by_parent``). Errors of
    ``fetch`` propagate: the caller decides whether chunks alone will do. The first passage
    is kept even when it alone exceeds the budget, so an answer always has something to cite.
    """
    if budget_tokens <= 0:
        raise ValueError(f"budget_tokens must be positive, not {budget_tokens}")
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for i, r in enumerate(results):
        key = str(r.get("parent_id") or f"\x00chunk{i}")
        groups.setdefault(key, []).append(r)
    parent_ids = [k for k in groups if not k.startswith("\x00")]
    by_parent: dict[str, list[dict[str, Any]]] = {}
    if parent_ids:
        for pl in fetch(parent_ids):
            by_parent.setdefault(str(pl.get("parent_id")), []).append(pl)

    passages: list[Passage] = []
    used = 0
    for key, hits in groups.items():
        remaining = budget_tokens - used
        if remaining <= 0:
            break
        parent_id = None if key.startswith("\x00") else key
        text, extent = _expand(hits, by_parent.get(key, []) if parent_id else [], remaining, count_tokens)
        if text is None:
            if passages:
                break
            text, extent = hits[0].get("text") or "", "chunk"  # the best hit, whatever its size
        top = hits[0]
        passages.append(
            Passage(
                n=len(passages) + 1,
                text=text,
                doc_id=str(top.get("doc_id") or ""),
                chunk_ids=[str(h.get("chunk_id")) for h in hits if h.get("chunk_id")],
                source=str(top.get("source") or ""),
                title=str(top.get("title") or ""),
                section=" > ".join(top.get("section_hierarchy") or []) or str(top.get("section") or ""),
                score=max(float(h.get("score") or 0.0) for h in hits),
                parent_id=parent_id,
                extent=extent,
                links=[str(x) for x in top.get("links") or []],
            )
        )
        used += count_tokens(text)
    log.debug("parents: %d passages, %d of %d tokens", len(passages), used, budget_tokens)
    return passages


def _expand(
    hits: list[Mapping[str, Any]], siblings: list[dict[str, Any]], budget: int, count_tokens: Callable[[str], int]
) -> tuple[str | None, Literal["parent", "window", "chunk"]]:
    """Text for one parent's hits within ``budget``: whole parent, window, chunks, or None."""
    if siblings:
        parent = stitch_parent(siblings)
        if count_tokens(parent) <= budget:
            return parent, "parent"
        spans = []
        for h in hits:
            pos = parent.find(str(h.get("text") or "\x00"))
            if pos >= 0:
                spans.append((pos, pos + len(str(h["text"]))))
        if spans:
            window = _window(parent, spans, budget, count_tokens)
            if window:
                return window, "window"
    texts = [str(h.get("text") or "") for h in hits]
    for candidate in ("\n…\n".join(texts), texts[0]):
        if candidate and count_tokens(candidate) <= budget:
            return candidate, "chunk"
    return None, "chunk"


def passages_as_dicts(passages: Sequence[Passage]) -> list[dict[str, Any]]:
    """Plain dicts for graph state (checkpointers store JSON)."""
    return [p.model_dump() for p in passages]
