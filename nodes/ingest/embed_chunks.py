"""Embed the current batch's chunks (title and section path included in the text)."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.ingestion.pipeline import embed_records
from graph.ingest_state import IngestContext, IngestState
from nodes.types import IngestNode as Node


def make(c: Components) -> Node:
    async def embed_chunks(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        batch = list(state.get("batch") or [])
        vectors = await asyncio.to_thread(embed_records, batch, c.embedder)
        return {"vectors": vectors}

    return embed_chunks
