"""With ``prune``: delete indexed documents under the given paths that no longer exist."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.ingestion.pipeline import prune_candidates
from components.stores.corpus import record_write
from graph.ingest_state import IngestContext, IngestState
from nodes.types import IngestNode as Node


def make(c: Components) -> Node:
    async def prune_documents(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        index = c.index(state.get("collection"))
        pruned = 0
        version = state.get("version")

        gone: list[str] = []

        def work() -> tuple[int, int | None]:
            nonlocal gone
            if not state.get("prune") or not index.exists():
                return 0, version
            gone = prune_candidates(
                index,
                list(state.get("paths") or []),
                set(state.get("seen_doc_ids") or []),
                set(state.get("unsafe_origins") or []),
            )
            if not gone:
                return 0, version
            removed = c.lexical(index.collection).terms(gone)
            index.delete_documents(gone)
            bumped = index.bump_version()
            record_write(c.terms_path(index.collection), removed=removed, added=[], version=bumped)
            return len(gone), bumped

        pruned, version = await asyncio.to_thread(work)
        if version is None and index.exists():
            version = int((await asyncio.to_thread(index.metadata)).get("version", 0))
        return {"pruned": pruned, "version": version or 0, "changed_doc_ids": gone}

    return prune_documents
