"""Find the source files and make sure the collection exists for this embedding model."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.ingestion.pipeline import find_sources
from graph.ingest_state import IngestContext, IngestState
from nodes.types import IngestNode as Node


def collection_name(c: Components, runtime: Runtime[IngestContext]) -> str:
    ctx = runtime.context
    return (ctx.collection if ctx and ctx.collection else "") or c.settings.collection


def make(c: Components) -> Node:
    async def load_sources(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        started = time.time()
        files, failures, ignored = await asyncio.to_thread(find_sources, list(state.get("paths") or []))
        runtime.stream_writer({"event": "found", "files": len(files), "failures": len(failures)})
        return {
            "files": files,
            "failures": failures,
            "ignored": ignored,
            "started": started,
            "collection": collection_name(c, runtime),
            "written_documents": 0,
            "written_chunks": 0,
            "changed_doc_ids": None,
        }

    return load_sources
