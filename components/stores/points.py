"""What a chunk is in the store: its point id, its payload, and the payload fields that are indexed.

Every chunk collection holds one point per chunk, at an id derived from its document and its
place in it, so that re-ingesting a document overwrites its points in place. Its payload holds
what a search result shows and what a filter tests; ``INDEXED`` names the fields the store keeps
a payload index on.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import qdrant_edge as qe

from components.ingestion.documents import Chunk

DENSE = "dense"
"""Name of the one dense vector of each point."""


class StoredPoint(Protocol):
    """A point as the store returns it: qdrant-client's ``Record`` from a server, Edge's
    ``EdgePoint`` from the embedded store; what code above the store reads of either."""

    @property
    def id(self) -> int | str: ...
    @property
    def payload(self) -> dict[str, Any] | None: ...
    @property
    def vector(self) -> Any: ...


class FoundPoint(StoredPoint, Protocol):
    """A point a search returned (qdrant-client's ``ScoredPoint``, Edge's ``EdgePoint``)."""

    @property
    def score(self) -> float: ...


CONTENT_KEY = "text"
"""Payload key of the chunk's text (LangChain's ``content_payload_key``)."""
METADATA_KEY = "metadata"
"""Payload key of the document's own metadata (frontmatter extras, a JSONL record's ``metadata``)."""
AUTHORS_KEY = "metadata.authors"
"""Payload key of a paper's authors (a PDF's info dictionary, a note's or a record's ``authors``)."""
_NS = uuid.UUID("6f1c7a52-3d4e-4b8a-9a51-6c1f0e2d9b7a")
INDEXED = {
    # what search filters test (components/retrieval/filters.py, the CLI's paper options)
    "doc_id": "keyword",
    "vault": "keyword",
    "tags": "keyword",
    "language": "keyword",
    "source": "keyword",
    "source_prefixes": "keyword",
    "section_hierarchy": "keyword",
    "chunk_type": "keyword",
    "created_ts": "float",
    "modified_ts": "float",
    "format": "keyword",
    "access": "keyword",
    "metadata.year": "float",
    "metadata.collections": "keyword",
    "metadata.item_type": "keyword",
    AUTHORS_KEY: "keyword",
    # what the store's own reads and writes select by (parents, a rewrite's leftovers, examples)
    "parent_id": "keyword",
    "chunk_index": "integer",
    "audience": "keyword",
}
"""The payload fields the store keeps an index on, with the index's kind (qdrant-client's schema name)."""


def of_documents(doc_ids: Sequence[str]) -> qe.Filter:
    """The points of these documents (a chunk's ``doc_id``, or any of a sentence's listed documents)."""
    return qe.Filter(must=[qe.FieldCondition(key="doc_id", match=qe.MatchAny(list(doc_ids)))])


def point_id(doc_id: str, index: int) -> str:
    """Deterministic id: the same chunk of the same document always lands on the same point."""
    return str(uuid.uuid5(_NS, f"{doc_id}\x00{index}"))


def chunk_point_id(chunk_id: str) -> str | None:
    """The point id of a chunk id (``doc_id#index``, as ``Chunk.chunk_id``), or None if malformed."""
    doc_id, sep, index = chunk_id.rpartition("#")
    if not sep or not index.isdigit():
        return None
    return point_id(doc_id, int(index))


def _ts(iso: str | None) -> float | None:
    if not iso:
        return None
    try:
        dt = datetime.fromisoformat(iso)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def norm_prefix(prefix: str) -> str:
    """Prefix filters match whole path segments: ``/notes/a`` matches ``/notes/a/x.md``."""
    return prefix.rstrip("/") or "/"


def source_prefixes(source: str) -> list[str]:
    """Every segment prefix of a path or URL, stored so a prefix filter is a keyword match."""
    if "://" in source:
        scheme, rest = source.split("://", 1)
        parts = rest.split("/")
        out = [f"{scheme}://{'/'.join(parts[:i])}" for i in range(1, len(parts) + 1)]
    else:
        parts = source.split("/")
        out = ["/".join(parts[:i]) or "/" for i in range(1, len(parts) + 1)]
    return sorted({norm_prefix(p) for p in out if p})


def chunk_payload(c: Chunk, content_hash: str) -> dict[str, Any]:
    """Everything a search result shows and a filter can test, for one chunk."""
    d = c.doc
    return {
        "origin": d.origin or d.source,
        CONTENT_KEY: c.text,
        "doc_id": d.doc_id,
        "chunk_id": c.chunk_id,
        "chunk_index": c.index,
        "total_chunks": c.total,
        "source": d.source,
        "source_prefixes": source_prefixes(d.source),
        "title": d.title,
        "section_hierarchy": c.section_hierarchy,
        "section": " > ".join(c.section_hierarchy),
        "chunk_type": c.chunk_type,
        "vault": d.vault,
        "tags": d.tags,
        "aliases": d.aliases,
        "links": d.links,
        "created": d.created,
        "created_ts": _ts(d.created),
        "modified": d.modified,
        "modified_ts": _ts(d.modified),
        "language": d.language,
        "format": d.format,
        "content_hash": content_hash,
        "parent_id": c.parent_id,
        "parent_start": c.parent_start,
        "parent_end": c.parent_end,
        METADATA_KEY: d.metadata,
        "access": d.access,
    }
