"""What kind of text a chunk holds: ``heading``, ``abstract``, ``table``, ``code`` or ``body``.

Recorded at ingestion (payload ``chunk_type``) so that a search can keep to abstracts or skip
code (``rag search -c abstract``). The type is a function of what the payload already holds
(the chunk's text, its section path and its document's title), so a store written before the
field existed is labelled by the same function without re-chunking or re-embedding
(:func:`components.stores.qdrant.QdrantIndex.backfill_chunk_types`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Literal, get_args

ChunkType = Literal["heading", "abstract", "body", "table", "code"]
#: every value ``chunk_type`` takes, in the order ``--help`` lists them
CHUNK_TYPES: tuple[str, ...] = get_args(ChunkType)

_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
# section names papers and notes use for their summary, in English and Japanese
_ABSTRACT_HEADING = re.compile(
    r"^\s*(\d+[.)]?\s*)?(abstract|summary|tl;?dr|要旨|概要|要約|抄録|アブストラクト|まとめ)\s*$", re.IGNORECASE
)
# a PDF page carries no headings: its abstract opens with the word itself, set off by punctuation
# or a line break, or in capitals ("Abstract thinking ..." is a sentence, not the section)
_ABSTRACT_LEAD = re.compile(r"^\s*(?:(?i:abstract|要旨|概要|抄録)\s*(?:[:.：—–-]|\n)|ABSTRACT\s)")
# on a paper's first page the word may sit a few lines down (after the title and the authors)
_ABSTRACT_LINE = re.compile(r"(?:^|\n)\s*(?:(?i:abstract|要旨|抄録)\s*(?:[:.：—–-]|\n)|ABSTRACT\s)")


def chunk_type(text: str, section_hierarchy: Sequence[str], title: str = "") -> ChunkType:
    """The type of one chunk; ``body`` unless the text or its section says otherwise."""
    stripped = text.strip()
    lines = [ln for ln in stripped.split("\n") if ln.strip()]
    if not lines:
        return "body"
    # a kind that fills at least half the chunk's characters names it: a paragraph with a small
    # table after it stays body text
    if _share_in_fences(lines) >= 0.5:
        return "code"
    if _chars(ln for ln in lines if _TABLE_ROW.match(ln)) >= 0.5 * _chars(lines):
        return "table"
    if stripped in {title.strip(), *(h.strip() for h in section_hierarchy[-1:])}:
        return "heading"
    if any(_ABSTRACT_HEADING.match(h) for h in section_hierarchy) or _ABSTRACT_LEAD.match(stripped):
        return "abstract"
    if section_hierarchy and section_hierarchy[0] == "p. 1" and _ABSTRACT_LINE.search(stripped[:600]):
        return "abstract"
    return "body"


def _chars(lines: Iterable[str]) -> int:
    return sum(len(ln.strip()) for ln in lines)


def _share_in_fences(lines: list[str]) -> float:
    """Share of characters inside (or forming) fenced code blocks; a chunk cut inside an unclosed
    block counts from its opening fence to its end."""
    inside = False
    fenced: list[str] = []
    for ln in lines:
        if _FENCE.match(ln):
            fenced.append(ln)
            inside = not inside
        elif inside:
            fenced.append(ln)
    return _chars(fenced) / max(1, _chars(lines))
