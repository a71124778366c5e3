"""Documents that meet a question's conditions, listed rather than searched.

A question such as 「2025年に書いた #料理 のメモは？」 or "Which notes are tagged rag?" states
conditions on documents (tags, vault, dates) and nothing to rank them by: the answer is every
document that meets them, not the chunks closest to the words "notes" and "2025". This module
turns the chunks a filtered scroll returns into one row per document, with the document's own
metadata (title, date, path, tags; authors and year for papers), and orders them the way the
question implies: newest first by default and for "recent" / 「最近」; by date, oldest first,
when the question names a period (a range reads best in calendar order).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import PurePath
from typing import Any

from components.retrieval.filters import SearchFilters

#: payload fields a listing reads (never the chunk text)
LIST_FIELDS = ("doc_id", "chunk_id", "chunk_index", "title", "source", "created", "tags", "vault", "metadata")

_RECENT = re.compile(r"\b(?:recent(?:ly)?|latest|newest|most\s+recent|last\s+few)\b|最近|最新|新しい順|直近", re.I)


@dataclass(frozen=True)
class ListedDocument:
    """One document of a listing, with the metadata people recognise it by."""

    doc_id: str
    title: str
    source: str
    chunk_id: str | None
    created: str | None
    """ISO date (YYYY-MM-DD) from frontmatter, or a paper's year as YYYY."""
    tags: tuple[str, ...] = ()
    vault: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None

    @property
    def when(self) -> str | None:
        """The date the listing shows and sorts by: the note's creation date, else the paper's year."""
        return self.created or (str(self.year) if self.year else None)

    @property
    def place(self) -> str:
        """The path inside its vault when the source is a vault note (``life/recipes/Karaage.md``), else the source."""
        parts = PurePath(self.source).parts
        if self.vault and self.vault in parts:
            at = len(parts) - 1 - parts[::-1].index(self.vault)
            return "/".join(parts[at:])
        return self.source


def documents_of(payloads: Iterable[Mapping[str, Any]]) -> list[ListedDocument]:
    """One row per document from its chunks' payloads (the document's first chunk speaks for it)."""
    first: dict[str, Mapping[str, Any]] = {}
    for p in payloads:
        doc = str(p.get("doc_id") or p.get("source") or "")
        if not doc:
            continue
        seen = first.get(doc)
        if seen is None or int(p.get("chunk_index") or 0) < int(seen.get("chunk_index") or 0):
            first[doc] = p
    return [_row(doc, p) for doc, p in first.items()]


def _row(doc: str, p: Mapping[str, Any]) -> ListedDocument:
    raw = p.get("metadata")
    meta: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    authors = meta.get("authors") or ()
    if isinstance(authors, str):
        authors = [a.strip() for a in re.split(r";|\band\b", authors) if a.strip()]
    year = meta.get("year")
    created = p.get("created")
    return ListedDocument(
        doc_id=doc,
        title=str(p.get("title") or PurePath(str(p.get("source") or doc)).stem),
        source=str(p.get("source") or doc),
        chunk_id=str(p["chunk_id"]) if p.get("chunk_id") else None,
        created=str(created)[:10] if created else None,
        tags=tuple(str(t) for t in p.get("tags") or ()),
        vault=str(p["vault"]) if p.get("vault") else None,
        authors=tuple(str(a) for a in authors),
        year=int(year) if isinstance(year, int | str) and str(year).isdigit() else None,
    )


def order(docs: Iterable[ListedDocument], question: str, filters: SearchFilters) -> tuple[list[ListedDocument], str]:
    """``docs`` in the order the question implies, and that order's name ("newest" or "oldest").

    Titles of one date go A to Z, and undated documents come last, by title, so a listing is stable."""
    docs = sorted(docs, key=lambda d: d.title)
    ranged = (filters.created_from is not None or filters.created_to is not None) and not _RECENT.search(question)
    dated = sorted((d for d in docs if d.when), key=lambda d: d.when or "", reverse=not ranged)
    return [*dated, *(d for d in docs if not d.when)], "oldest" if ranged else "newest"


def conditions(filters: SearchFilters, labels: Mapping[str, str]) -> list[str]:
    """The conditions a listing applied, in words (``labels`` holds the language's templates)."""
    out: list[str] = []
    if filters.tags:
        out.append(labels["tags"].format(values=", ".join(f"#{t}" for t in filters.tags)))
    if filters.any_tags:
        out.append(labels["tags"].format(values=labels["or"].join(f"#{t}" for t in filters.any_tags)))
    if filters.vaults:
        out.append(labels["vaults"].format(values=", ".join(filters.vaults)))
    if filters.authors:
        out.append(labels["authors"].format(values=", ".join(filters.authors)))
    lo, hi = filters.created_from, filters.created_to
    if lo and hi:
        out.append(labels["created_between"].format(start=_iso(lo), end=_iso(hi)))
    elif lo:
        out.append(labels["created_from"].format(start=_iso(lo)))
    elif hi:
        out.append(labels["created_to"].format(end=_iso(hi)))
    # whatever else the caller set (a source prefix, a `where`), as the filters word it; never the access scope
    rest = filters.without_access().model_copy(
        update={
            "tags": None,
            "any_tags": None,
            "vaults": None,
            "authors": None,
            "created_from": None,
            "created_to": None,
        }
    )
    out.extend(c.label for c in rest.conditions())
    return out


def _iso(d: date) -> str:
    return d.isoformat()
