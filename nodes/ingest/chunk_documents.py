"""Take the next batch of pending documents and cut them into chunks."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.ingestion.pipeline import chunk_records
from components.resilience.errors import ConfigurationError
from graph.ingest_state import IngestContext, IngestState
from nodes.types import IngestNode as Node


def make(c: Components) -> Node:
    async def chunk_documents(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        ctx = runtime.context or IngestContext()
        n = max(1, ctx.batch_documents)
        pending = list(state.get("pending") or [])
        batch, rest = pending[:n], pending[n:]
        size = ctx.chunk_size or c.settings.chunk_size
        overlap = ctx.chunk_overlap if ctx.chunk_overlap >= 0 else c.settings.chunk_overlap
        if not 0 <= overlap < size:  # checked before anything is written, so nothing is half done
            raise ConfigurationError(
                f"chunk_overlap ({overlap}) must be at least 0 and smaller than chunk_size ({size}); "
                f"change the run's context or the CHUNK_OVERLAP / CHUNK_SIZE settings."
            )
        records = await asyncio.to_thread(chunk_records, batch, size=size, overlap=overlap)
        return {"batch": records, "pending": rest}

    return chunk_documents
