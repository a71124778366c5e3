"""Take the next batch of pending documents and cut them into chunks."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.ingestion import chunk_records
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
        if overlap >= size:
            overlap = size // 4
        records = await asyncio.to_thread(chunk_records, batch, size=size, overlap=overlap)
        return {"batch": records, "pending": rest}

    return chunk_documents
