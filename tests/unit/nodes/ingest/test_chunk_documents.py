"""Chunking: the next batch of pending documents is cut into chunks; a bad overlap stops the run first,
a document that cannot be chunked is reported and left out, and a big one is a batch of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from components.ingestion import pipeline
from components.ingestion.documents import Document
from components.resilience.errors import ConfigurationError
from graph.ingest_state import IngestContext
from nodes.ingest import chunk_documents, load_sources, parse_documents
from tests.unit.nodes.helpers import run, steps


def test_one_batch_is_chunked_and_the_rest_waits(components: Components, vault: Path) -> None:
    state = steps(components, {"paths": [str(vault)]}, load_sources, parse_documents)
    out = run(chunk_documents.make(components), state, IngestContext(batch_documents=1))
    [record] = out["batch"]
    assert len(out["pending"]) == 1 and record["doc_id"] != out["pending"][0]["doc_id"]
    sections = [p["section_hierarchy"] for p in record["payloads"]]
    assert len(sections) == len(record["texts"]) > 1 and all(sections)


def test_an_overlap_not_smaller_than_the_chunk_size_is_refused_before_anything_is_written(
    components: Components, vault: Path
) -> None:
    state = steps(components, {"paths": [str(vault)]}, load_sources, parse_documents)
    with pytest.raises(ConfigurationError, match=r"chunk_overlap \(500\) must be .* smaller than chunk_size \(400\)"):
        run(chunk_documents.make(components), state, IngestContext(chunk_size=400, chunk_overlap=500))
    assert not components.index().exists()


def test_a_document_that_cannot_be_chunked_is_reported_and_the_others_go_on(
    components: Components, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = steps(components, {"paths": [str(vault)]}, load_sources, parse_documents)
    bad, good = state["pending"]
    real = pipeline.chunk_document

    def chunker(doc: Document, **kw: Any) -> Any:
        if doc.doc_id == bad["doc_id"]:
            raise RecursionError("maximum recursion depth exceeded")
        return real(doc, **kw)

    monkeypatch.setattr(pipeline, "chunk_document", chunker)
    events: list[dict[str, Any]] = []
    out = run(chunk_documents.make(components), state, IngestContext(), events=events)
    assert [r["doc_id"] for r in out["batch"]] == [good["doc_id"]]
    assert out["failures"] == [
        {"source": bad["origin"], "reason": "could not be chunked (RecursionError: maximum recursion depth exceeded)"}
    ]
    assert events[-1] == {"event": "failed", "documents": 1}


def test_the_batch_names_its_largest_documents_file(components: Components, vault: Path) -> None:
    state = steps(components, {"paths": [str(vault)]}, load_sources, parse_documents)
    largest = max(state["pending"], key=lambda d: len(d["text"]))
    events: list[dict[str, Any]] = []
    run(chunk_documents.make(components), state, IngestContext(), events=events)
    assert events == [{"event": "batch", "file": largest["origin"], "other_files": 1, "documents": 2}]


def test_a_big_document_is_a_batch_of_its_own_after_the_small_ones(
    components: Components, vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (vault / "big.md").write_text("# Big\n" + "A sentence of the big note. " * 2000, encoding="utf-8")
    monkeypatch.setattr(pipeline, "BATCH_CHARS", 10_000)
    state = steps(components, {"paths": [str(vault)]}, load_sources, parse_documents)
    first = run(chunk_documents.make(components), state, IngestContext())
    assert len(first["batch"]) == 2 and "big.md" not in {Path(r["doc_id"]).name for r in first["batch"]}
    second = run(chunk_documents.make(components), {**state, "pending": first["pending"]}, IngestContext())
    assert [Path(r["doc_id"]).name for r in second["batch"]] == ["big.md"] and second["pending"] == []
