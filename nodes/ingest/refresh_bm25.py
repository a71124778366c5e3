"""After a write: bring what queries read about the whole collection up to date now, so the first search does not wait.

The collection keeps its BM25 in the store, so what queries read of it is its term statistics,
which the writes moved along (components/stores/corpus.py): loading them here costs
milliseconds, and counts them from the stored vectors once if they were missing. They hold the
collection's true average chunk length: when the stored BM25 weights were computed with one too
far from it (a new collection's first batch fixed an estimate), they are rewritten here
(``settle_lengths``), before any query reads them. Nothing written or pruned: nothing to do. A
failure costs nothing but that time: the chunks are in Qdrant and the first query loads what it
needs, so it is logged, not raised.
"""

from __future__ import annotations

import asyncio
import logging
import time
from functools import partial
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.stores.corpus import settle_lengths
from graph.ingest_state import IngestContext, IngestState, changed_collection
from nodes.types import IngestNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def refresh_bm25(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        if changed_collection(state):
            t0 = time.perf_counter()
            collection = state.get("collection") or None
            try:
                corpus = await asyncio.to_thread(c.corpus, collection)
                log.info("collection statistics: %d chunks in %.1fs", corpus.size, time.perf_counter() - t0)
            except Exception as e:  # an optimisation: whatever stops it, the ingested chunks stay and queries load it
                log.warning(
                    "collection statistics not refreshed after ingestion (the first search loads them): %s: %s",
                    type(e).__name__,
                    e,
                )
                return {}
            try:
                path = c.terms_path(collection)
                settled = partial(settle_lengths, c.lexical(collection), path, version=corpus.version)
                if await asyncio.to_thread(settled):
                    return {"version": (await asyncio.to_thread(c.corpus, collection)).version}
            except Exception as e:  # the weights stay as they were: searches still rank, a little less well
                log.warning(
                    "BM25 weights not rewritten for the collection's average length (the next ingestion "
                    "tries again): %s: %s",
                    type(e).__name__,
                    e,
                )
        return {}

    return refresh_bm25
