"""After a write: rebuild the collection's BM25 index now, so the first search does not pay for it.

Queries build the index lazily when the collection's version moved (7.5 s for SciFact's
12,490 chunks on a 2-core machine), which the first person to search after an ingestion would
wait through. Building it here moves that wait into the ingestion, which shows progress
anyway. Nothing written or pruned: nothing to do. A failure costs nothing but that time: the
chunks are in Qdrant and the first query builds the index lazily, so it is logged, not raised.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from graph.ingest_state import IngestContext, IngestState, changed_collection
from nodes.types import IngestNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def refresh_bm25(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        if changed_collection(state):
            t0 = time.perf_counter()
            try:
                bm = await asyncio.to_thread(c.bm25, state.get("collection") or None)
                log.info("BM25 index: %d chunks in %.1fs", bm.size, time.perf_counter() - t0)
            except Exception as e:  # an optimisation: whatever stops it, the ingested chunks stay and queries rebuild
                log.warning(
                    "BM25 index not rebuilt after ingestion (the first search will build it): %s: %s",
                    type(e).__name__,
                    e,
                )
        return {}

    return refresh_bm25
