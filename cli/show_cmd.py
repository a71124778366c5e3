"""``rag show DOC_ID``: one document as the index holds it, its metadata and its chunks in order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from cli.dispatch import OnEvent, Request, ignore
from components.resilience.errors import UnknownDocument

if TYPE_CHECKING:  # `rag show` forwarded to `rag serve` only renders here
    from components.factory import Components

#: payload fields shown as the document's own (the same on each of its chunks)
DOCUMENT_FIELDS = (
    "doc_id",
    "title",
    "source",
    "vault",
    "tags",
    "created",
    "modified",
    "language",
    "format",
    "metadata",
)


def document(c: Components, doc_id: str, collection: str | None, groups: Sequence[str] = ()) -> dict[str, Any]:
    """The document's fields and its chunks (index, section, size, opening words); UnknownDocument
    when the collection does not hold it for these access groups."""
    from components.retrieval.filters import SearchFilters

    index = c.index(collection)
    # the same access rule as every search: public chunks and those shared with ``groups``
    only = SearchFilters.parse({"doc_ids": [doc_id]}).within(groups).to_qdrant()
    rows = sorted(
        (dict(p.payload or {}) for p in index.scroll(scroll_filter=only)), key=lambda p: int(p.get("chunk_index") or 0)
    )
    if not rows:
        raise UnknownDocument(doc_id, index.collection)
    out = {k: rows[0].get(k) for k in DOCUMENT_FIELDS}
    out["chunks"] = [
        {
            "chunk_id": p.get("chunk_id"),
            "index": p.get("chunk_index"),
            "section": " > ".join(p.get("section_hierarchy") or []),
            "type": p.get("chunk_type"),
            "chars": len(p.get("text") or ""),
            "opening": " ".join(str(p.get("text") or "").split())[:100],
        }
        for p in rows
    ]
    return out


@dataclass(frozen=True)
class ShowRequest(Request):
    """``rag show``'s question: a document, in a collection, as these access groups see it."""

    command: ClassVar[str] = "show"

    doc_id: str
    collection: str | None = None
    groups: tuple[str, ...] = ()

    def here(self, c: Components, on_event: OnEvent = ignore) -> dict[str, Any]:
        return document(c, self.doc_id, self.collection, self.groups)


def render(doc: dict[str, Any]) -> str:
    lines = [f"{doc['title'] or 'untitled'}", f"  id       {doc['doc_id']}", f"  source   {doc['source']}"]
    for key in ("vault", "created", "modified", "language", "format"):
        if doc.get(key):
            lines.append(f"  {key:<8} {doc[key]}")
    if doc.get("tags"):
        lines.append(f"  tags     {', '.join(doc['tags'])}")
    for key, value in (doc.get("metadata") or {}).items():
        lines.append(f"  {key:<8} {value}")
    lines.append(f"  chunks   {len(doc['chunks'])}")
    lines += [
        f"    {ch['index']:>3}. {ch['section'] or '—'} ({ch.get('type') or 'chunk'}, {ch['chars']} chars): "
        f"{ch['opening']}"
        for ch in doc["chunks"]
    ]
    return "\n".join(lines) + "\n"
