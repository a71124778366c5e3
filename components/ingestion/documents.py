"""The document and chunk records that flow from loaders through the chunker to the index."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from components.ingestion.chunk_types import chunk_type
from components.text.language import detect_language


@dataclass
class Document:
    """One source document, parsed, before chunking."""

    doc_id: str
    text: str
    source: str
    title: str
    format: str
    vault: str | None = None
    tags: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    created: str | None = None  # ISO 8601 date or datetime
    modified: str | None = None
    links: list[str] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    #: the file this document was read from (a JSONL file holds many documents)
    origin: str | None = None
    #: pages of a PDF: (section label, text); when set, chunking follows pages instead of headings
    pages: list[tuple[str, str]] | None = None
    #: access groups (frontmatter or JSONL ``metadata`` ``access``); empty: public
    access: list[str] = field(default_factory=list)

    @cached_property
    def language(self) -> str:
        """``ja``, ``en`` or ``und``, detected once per document: every chunk's payload states it, and
        detecting it anew per chunk would read (and copy) the whole text once per chunk."""
        return detect_language(self.title + "\n" + self.text)

    @property
    def content_hash(self) -> str:
        """Hash of everything that ends up in the index, so metadata edits count as changes."""
        h = hashlib.sha256()
        for part in (self.text, self.title, self.source, self.vault or "", self.created or ""):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        h.update(json.dumps([self.tags, self.aliases, self.metadata], sort_keys=True, default=str).encode())
        if self.pages:
            h.update(json.dumps(self.pages).encode())
        if self.access:  # only when set, so public documents keep the hash they had
            h.update(json.dumps(["access", sorted(self.access)]).encode())
        if self.aliases:  # aliases joined the embedded text: re-embed (only) the documents that have some
            h.update(b"aliases in search text")
        return h.hexdigest()[:32]


@dataclass
class Chunk:
    """A piece of a document as stored in the index: the text and its payload."""

    doc: Document
    index: int
    text: str
    section_hierarchy: list[str]
    parent_id: str
    parent_start: int
    parent_end: int
    total: int = 0

    @property
    def chunk_id(self) -> str:
        return f"{self.doc.doc_id}#{self.index}"

    @property
    def chunk_type(self) -> str:
        """``heading``, ``abstract``, ``body``, ``table`` or ``code`` (see chunk_types)."""
        return chunk_type(self.text, self.section_hierarchy, self.doc.title)

    @property
    def search_text(self) -> str:
        """What the embedder and BM25 see: title, aliases and section path give the chunk its context."""
        head = heading(self.doc.title, self.doc.aliases, self.section_hierarchy)
        return f"{head}\n{self.text}" if head else self.text


def heading(title: str, aliases: Sequence[str], sections: Sequence[str]) -> str:
    """``Title (alias, alias) > Section > Subsection``: the line before a chunk's text in what is
    embedded and BM25-indexed. Aliases are a note's other names, often in the other language
    (``Monstera Care`` with ``モンステラ``), so a question in either language meets the note."""
    name = title or ""
    if aliases:
        name = f"{name} ({', '.join(aliases)})" if name else ", ".join(aliases)
    return " > ".join(x for x in [name, *sections] if x)
