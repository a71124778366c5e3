"""Write the batch to Qdrant (one request: vectors, BM25 term weights, payloads), bump the collection
version, and move the collection's term statistics along the write."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.stores.corpus import record_write
from components.stores.lexical import LexicalIndex, sparse_config
from graph.ingest_state import IngestContext, IngestState
from nodes.types import IngestNode as Node


def make(c: Components) -> Node:
    async def upsert_chunks(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        batch = list(state.get("batch") or [])
        vectors = list(state.get("vectors") or [])
        if not batch:  # every document of the batch failed to chunk: nothing to write, no version to bump
            return {"batch": [], "vectors": []}
        index = c.index(state.get("collection"))
        embedder = c.embedder

        def work() -> int:
            dims = {len(v[0]) for v in vectors if v}
            dim = dims.pop() if dims else embedder.dim
            # a new collection keeps BM25's term weights beside the vectors (components/stores/lexical.py)
            index.ensure(embedding_model=embedder.model_id, dim=dim, sparse=sparse_config())
            lexical = LexicalIndex(index, c.tokenizer)
            weights = lexical.weights([r["payloads"] for r in batch])
            # the chunks this write replaces leave the collection's term statistics (components/stores/corpus.py)
            replaced = lexical.terms([r["doc_id"] for r in batch])
            index.write([(r["doc_id"], r["payloads"], v) for r, v in zip(batch, vectors, strict=True)], sparse=weights)
            version = index.bump_version()
            added = lexical.written(weights[1])
            record_write(c.terms_path(index.collection), removed=replaced, added=added, version=version)
            return version

        version = await asyncio.to_thread(work)
        chunks = sum(len(r["payloads"]) for r in batch)
        runtime.stream_writer({"event": "written", "documents": len(batch), "chunks": chunks})
        return {
            "written_documents": len(batch),
            "written_chunks": chunks,
            "changed_doc_ids": [r["doc_id"] for r in batch],
            "version": version,
            "batch": [],
            "vectors": [],
        }

    return upsert_chunks
