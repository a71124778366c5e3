"""Parse every file and keep the documents that are new or changed since the last run."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.ingestion.pipeline import parse_sources
from graph.ingest_state import IngestContext, IngestState
from nodes.types import IngestNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def parse_documents(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        index = c.index(state.get("collection"))
        files = list(state.get("files") or [])
        limit = c.settings.max_document_bytes

        def work() -> tuple[Any, int, int]:
            if not index.exists():
                return parse_sources(files, lambda ids: {}, max_bytes=limit), 0, -1
            base = int(index.metadata().get("version", 0))
            # chunks written before chunk types were recorded get theirs now (payload only)
            retyped = index.backfill_chunk_types()
            if retyped:
                log.info("labelled %d chunks of an older version with their chunk type", retyped)
                index.bump_version()
            return parse_sources(files, index.states_reader(), max_bytes=limit), retyped, base

        res, retyped, base = await asyncio.to_thread(work)
        runtime.stream_writer(
            {"event": "parsed", "documents": res.documents, "pending": len(res.pending), "unchanged": res.unchanged}
        )
        return {
            "pending": res.pending,
            "base_version": base,
            "documents": res.documents,
            "new": res.new,
            "updated": res.updated,
            "unchanged": res.unchanged,
            "failures": res.failures,
            "seen_doc_ids": res.seen_doc_ids,
            "unsafe_origins": res.unsafe_origins,
            "retyped": retyped,
        }

    return parse_documents
