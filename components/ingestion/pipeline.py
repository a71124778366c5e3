"""Ingestion steps as plain functions over JSON-friendly records.

The ingestion graph's nodes call these; keeping them free of LangGraph makes them easy to
test and lets the graph state stay serialisable (records are dicts, vectors are lists), which
``langgraph dev`` needs for its checkpoints.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from components.ingestion.chunker import chunk_document
from components.ingestion.documents import Document
from components.ingestion.loaders import discover, load_file
from components.ingestion.loaders.source import Failure
from components.models.embedders import Embedder
from components.stores.points import chunk_payload
from components.stores.qdrant import DocState, QdrantIndex

log = logging.getLogger(__name__)


@dataclass
class ParseResult:
    pending: list[dict[str, Any]] = field(default_factory=list)  # new or changed documents
    unchanged: int = 0
    new: int = 0
    updated: int = 0
    seen_doc_ids: list[str] = field(default_factory=list)
    failures: list[dict[str, str]] = field(default_factory=list)
    #: files whose documents must not be pruned this run (they failed in whole or in part)
    unsafe_origins: list[str] = field(default_factory=list)
    documents: int = 0


def find_sources(paths: list[str]) -> tuple[list[dict[str, str | None]], list[dict[str, str]], int]:
    files, failures, ignored = discover([Path(p) for p in paths])
    return (
        [{"path": str(f.path), "vault": f.vault} for f in files],
        [dataclasses.asdict(f) for f in failures],
        ignored,
    )


States = Callable[[Sequence[str]], Mapping[str, DocState]]
"""What the index holds of these documents (``QdrantIndex.doc_states``)."""

STATE_BATCH = 512
"""Documents whose stored state is asked for at once: a filtered read per batch, never the whole collection."""


def parse_sources(files: list[dict[str, str | None]], states: States, *, max_bytes: int | None = None) -> ParseResult:
    """Parse every file, keep only documents whose content differs from what is indexed.

    A document over ``max_bytes`` (MAX_DOCUMENT_MB) is a failure, like a file that cannot be read.
    """
    from components.ingestion.loaders.source import SourceFile

    out = ParseResult()
    seen: set[str] = set()
    waiting: list[Any] = []

    def compare() -> None:
        held = states([item.doc_id for item in waiting])
        for item in waiting:
            state = held.get(item.doc_id)
            if state is not None and state.content_hash == item.content_hash and state.complete:
                out.unchanged += 1
                continue
            if state is None:
                out.new += 1
            else:
                out.updated += 1
            out.pending.append(dataclasses.asdict(item))
        waiting.clear()

    for f in files:
        src = SourceFile(Path(str(f["path"])), f.get("vault"))
        for item in load_file(src, max_bytes=max_bytes):
            if isinstance(item, Failure):
                out.failures.append(dataclasses.asdict(item))
                out.unsafe_origins.append(str(src.path))
                continue
            if item.doc_id in seen:
                out.failures.append(
                    {
                        "source": item.origin or item.source,
                        "reason": f"duplicate document id {item.doc_id!r}; the first one was kept",
                    }
                )
                continue
            seen.add(item.doc_id)
            out.documents += 1
            waiting.append(item)
            if len(waiting) >= STATE_BATCH:
                compare()
    compare()
    # smallest first: a big document is written last, so it never holds the others back, and a
    # run interrupted during it has written every other one
    out.pending.sort(key=lambda d: len(d.get("text") or ""))
    out.seen_doc_ids = sorted(seen)
    return out


BATCH_CHARS = 1_000_000
"""Characters of text a batch holds at most (about 1,300 chunks, seconds of embedding), besides its
document count: a big document is a batch of its own, so it holds no small one back."""


def next_batch(pending: list[dict[str, Any]], most: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The documents of the next batch (at most ``most`` of them, and one at least) and the rest."""
    n, chars = 0, 0
    while n < min(most, len(pending)):
        chars += len(pending[n].get("text") or "")
        if n and chars > BATCH_CHARS:
            break
        n += 1
    return pending[:n], pending[n:]


Failed = Callable[[dict[str, str]], None]
"""Told a failure (``source``, ``reason``), as ``IngestState.failures`` holds it."""


def chunk_records(
    docs: list[dict[str, Any]], *, size: int, overlap: int, on_failure: Failed | None = None
) -> list[dict[str, Any]]:
    """Per document: its id and chunk payloads (with the text to embed).

    With ``on_failure``, a document that cannot be chunked is told to it and left out, so the
    others of the batch are still written; without, its error is raised.
    """
    out = []
    for d in docs:
        try:
            doc = Document(**{**d, "pages": [tuple(p) for p in d["pages"]] if d.get("pages") else None})
            chunks = chunk_document(doc, size=size, overlap=overlap)
            h = doc.content_hash
            record = {
                "doc_id": doc.doc_id,
                "payloads": [chunk_payload(c, h) for c in chunks],
                "texts": [c.search_text for c in chunks],
            }
        except Exception as e:
            if on_failure is None:
                raise
            log.warning("document %s could not be chunked", d.get("doc_id"), exc_info=True)
            on_failure(unchunked(d, e))
            continue
        out.append(record)
    return out


def unchunked(doc: dict[str, Any], error: Exception) -> dict[str, str]:
    """The failure of a document that could not be chunked: its file, and its id where the file holds many."""
    source = str(doc.get("origin") or doc.get("source") or doc.get("doc_id"))
    which = f"document {doc.get('doc_id')!r} " if doc.get("doc_id") != source else ""
    return {"source": source, "reason": f"{which}could not be chunked ({type(error).__name__}: {error})"}


def embed_records(records: list[dict[str, Any]], embedder: Embedder) -> list[list[list[float]]]:
    """One embedding call for the whole batch (the embedder sorts by length inside)."""
    texts = [t for r in records for t in r["texts"]]
    if not texts:
        return [[] for _ in records]
    matrix = embedder.encode_documents(texts)
    out: list[list[list[float]]] = []
    pos = 0
    for r in records:
        n = len(r["texts"])
        out.append(matrix[pos : pos + n].tolist())
        pos += n
    return out


def prune_candidates(index: QdrantIndex, paths: list[str], seen: set[str], unsafe: set[str]) -> list[str]:
    """Documents indexed from under ``paths`` that this run did not see (and could have)."""
    roots = [Path(p).expanduser().resolve() for p in paths if Path(p).expanduser().exists()]
    roots += [Path(p).expanduser().absolute() for p in paths if not Path(p).expanduser().exists()]
    gone: list[str] = []
    for doc_id, state in index.doc_states().items():
        if doc_id in seen or state.origin in unsafe:
            continue
        origin = Path(state.origin)
        if any(origin == r or r in origin.parents for r in roots):
            gone.append(doc_id)
    return gone
