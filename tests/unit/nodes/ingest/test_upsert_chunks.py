"""Writing: the batch lands in the store in one request, searchable by words too, and the version moves on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from components.factory import Components
from nodes.ingest import chunk_documents, embed_chunks, load_sources, parse_documents, upsert_chunks
from tests.unit.nodes.helpers import run, steps


def test_the_batch_is_written_and_the_collection_version_moves_on(components: Components, vault: Path) -> None:
    state = steps(components, {"paths": [str(vault)]}, load_sources, parse_documents, chunk_documents, embed_chunks)
    chunks = sum(len(r["payloads"]) for r in state["batch"])
    events: list[Any] = []
    out = run(upsert_chunks.make(components), state, events=events)
    assert out["written_documents"] == 2 and out["written_chunks"] == chunks
    assert sorted(out["changed_doc_ids"]) == sorted(r["doc_id"] for r in state["batch"])
    assert out["batch"] == [] and out["vectors"] == []
    assert events == [{"event": "written", "documents": 2, "chunks": chunks}]
    index = components.index()
    assert out["version"] == index.metadata()["version"] >= 1
    assert len(list(index.scroll())) == chunks
    assert components.lexical() is not None, "the collection keeps BM25's term weights beside the vectors"
    assert components.corpus().size == chunks
