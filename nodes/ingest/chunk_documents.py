"""Take the next batch of pending documents and cut them into chunks."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.ingestion.pipeline import chunk_records, next_batch
from components.resilience.errors import ConfigurationError
from graph.ingest_state import IngestContext, IngestState
from nodes.types import IngestNode as Node


def make(c: Components) -> Node:
    async def chunk_documents(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        ctx = runtime.context or IngestContext()
        batch, rest = next_batch(list(state.get("pending") or []), max(1, ctx.batch_documents))
        size = ctx.chunk_size or c.settings.chunk_size
        overlap = ctx.chunk_overlap if ctx.chunk_overlap >= 0 else c.settings.chunk_overlap
        if not 0 <= overlap < size:  # checked before anything is written, so nothing is half done
            raise ConfigurationError(
                f"chunk_overlap ({overlap}) must be at least 0 and smaller than chunk_size ({size}); "
                f"change the run's context or the CHUNK_OVERLAP / CHUNK_SIZE settings."
            )
        runtime.stream_writer({"event": "batch", **on_the_way(batch)})
        failures: list[dict[str, str]] = []
        records = await asyncio.to_thread(chunk_records, batch, size=size, overlap=overlap, on_failure=failures.append)
        if failures:  # reported with the run's other failures; the batch's other documents go on
            runtime.stream_writer({"event": "failed", "documents": len(failures)})
        return {"batch": records, "pending": rest, "failures": failures}

    return chunk_documents


def on_the_way(batch: list[dict[str, Any]]) -> dict[str, Any]:
    """What the progress display names for a batch: the file of its largest document (where its
    time goes), and how many other files the batch holds."""
    if not batch:
        return {"file": "", "other_files": 0, "documents": 0}
    largest = max(batch, key=lambda d: len(d.get("text") or ""))
    files = {_file(d) for d in batch}
    return {"file": _file(largest), "other_files": len(files) - 1, "documents": len(batch)}


def _file(doc: dict[str, Any]) -> str:
    """The file a document was read from (a JSONL corpus holds many)."""
    return str(doc.get("origin") or doc.get("source") or "")
