"""Split documents into chunks: by headings first, then by size on sentence ends.

Headings give each chunk its section hierarchy (``["Setup", "Install"]``) and a parent (the
section), which the query graph later expands to. Inside a section, text is cut at sentence
ends (``.!?`` and Japanese ``。！？``), falling back to line breaks and finally a hard cut,
with an overlap of whole sentences carried to the next chunk.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from components.ingestion.documents import Chunk, Document
from components.text.sentences import split_sentences

log = logging.getLogger(__name__)

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
# a sentence ends after .!? followed by space, or after 。！？ (and closing brackets) anywhere


@dataclass
class Section:
    hierarchy: list[str]
    text: str


def split_sections(text: str) -> list[Section]:
    """Markdown headings (outside code fences) to sections with their heading path."""
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    buf: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(buf).strip()
        if body:
            sections.append(Section([h for _, h in stack], body))
        buf.clear()

    for line in text.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line)
        if m:
            flush()
            level = len(m.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, m.group(2).strip()))
        else:
            buf.append(line)
    flush()
    return sections


def _pieces(sentence: str, size: int) -> list[str]:
    """A sentence longer than ``size``: cut at line breaks, then spaces, then hard.

    The cuts are found by offsets into the sentence, never by copying what is left of it: a
    log or a table has no sentence ends, so its "sentence" is the whole section, megabytes long.
    """
    if len(sentence) <= size:
        return [sentence]
    out: list[str] = []
    pos = 0
    while len(sentence) - pos > size:
        last = max(sentence.rfind(mark, pos, pos + size) for mark in ("\n", "、", " ")) - pos
        cut = last + 1 if last > size // 3 else size
        out.append(sentence[pos : pos + cut])
        pos += cut
    if pos < len(sentence):
        out.append(sentence[pos:])
    return out


def chunk_section(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the chunks of one section's text."""
    units: list[tuple[int, int]] = []
    pos = 0
    for s in split_sentences(text):
        for p in _pieces(s, size):
            units.append((pos, pos + len(p)))
            pos += len(p)
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(units):
        start = units[i][0]
        j = i
        while j + 1 < len(units) and units[j + 1][1] - start <= size:
            j += 1
        spans.append((start, units[j][1]))
        if j + 1 >= len(units):
            break
        # step back over whole sentences to carry up to ``overlap`` characters along
        k = j
        while k > i and units[j][1] - units[k][0] <= overlap:
            k -= 1
        i = max(k + 1, i + 1)
    return spans


def chunk_document(doc: Document, *, size: int = 800, overlap: int = 120) -> list[Chunk]:
    """All chunks of a document, numbered in reading order, ``total`` filled in."""
    if doc.pages is not None:
        sections = [Section([label], text) for label, text in doc.pages]
    else:
        sections = split_sections(doc.text)
    if not sections and doc.title:
        sections = [Section([], doc.title)]
    chunks: list[Chunk] = []
    for sec in sections:
        parent_id = f"{doc.doc_id}#/" + "/".join(sec.hierarchy)
        for start, end in chunk_section(sec.text, size, overlap):
            piece = sec.text[start:end].strip()
            if not piece:
                continue
            chunks.append(
                Chunk(
                    doc=doc,
                    index=len(chunks),
                    text=piece,
                    section_hierarchy=list(sec.hierarchy),
                    parent_id=parent_id,
                    parent_start=start,
                    parent_end=end,
                )
            )
    for c in chunks:
        c.total = len(chunks)
    return chunks


# ------------------------------------------------------------------ stitching (chunking undone)

_MAX_WHITESPACE_GAP = 4
_MISSING = "\n…\n"


def _whitespace(prev: str, n: int) -> str:
    """Best guess for ``n`` characters of whitespace stripped off a chunk's end.

    Chunks are stored stripped; where two chunks do not overlap, the whitespace between them
    is known only by its length: one character after Latin text is a space, otherwise line breaks.
    """
    if n == 1 and prev and prev[-1].isascii():
        return " "
    return "\n" * min(n, 2)


def stitch_parent(chunks: list[dict[str, Any]]) -> str:
    """The section's text rebuilt from its chunks (payload dicts) by their offsets.

    Overlapping parts are taken once. Stored chunk texts are stripped, so a chunk's text
    starts at ``parent_start`` plus the leading whitespace it lost (found by matching the
    text already placed). A hole longer than a few characters (a chunk missing from the
    list) is marked with an ellipsis rather than filled with invented text.
    """
    ordered = sorted(
        (c for c in chunks if c.get("text")),
        key=lambda c: (int(c.get("parent_start") or 0), int(c.get("chunk_index") or 0)),
    )
    out = ""
    for c in ordered:
        text = str(c["text"])
        start = int(c.get("parent_start") or 0)
        end = int(c.get("parent_end") or start + len(text))
        if start >= len(out):
            gap = start - len(out)
            if not out:
                out = text
            elif gap <= _MAX_WHITESPACE_GAP:
                out += _whitespace(out, gap) + text
            else:
                out += _MISSING + text
            continue
        slack = max(0, end - start - len(text))
        for d in range(slack + 1):
            placed = out[start + d :]
            if text.startswith(placed) or placed.startswith(text):
                out += text[len(placed) :]
                break
        else:  # offsets disagree with the text (a rewritten document?): join on the longest overlap
            k = next((k for k in range(min(len(out), len(text)), 0, -1) if out.endswith(text[:k])), 0)
            log.debug("stitch: chunk %s does not sit at its offset; joined on %d shared chars", c.get("chunk_id"), k)
            out += text[k:] if k else _MISSING + text
    return out
