"""After a write: index what was written (the HNSW graph, payload indexes) before anyone searches.

The embedded Qdrant Edge store runs no optimizer in the background: points written stay in
plain segments, searched exactly, until ``optimize`` builds their graph. Doing it here puts that
work in the ingestion, which shows progress anyway, rather than in every query afterwards. A
server optimises by itself and local mode has nothing to build, so there it costs nothing. A
failure is logged, not raised: the chunks are written and searches stay exact, only slower.
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
    async def optimize_index(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        if changed_collection(state):
            t0 = time.perf_counter()
            try:
                await asyncio.to_thread(c.index(state.get("collection") or None).optimize)
                log.info("index optimised in %.1fs", time.perf_counter() - t0)
            except Exception as e:  # an optimisation: the chunks are written and searchable
                log.warning("index not optimised after ingestion (searches stay exact): %s: %s", type(e).__name__, e)
        return {}

    return optimize_index
