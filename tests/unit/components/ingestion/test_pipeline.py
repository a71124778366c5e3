"""Parsing asks the index about the documents at hand, a batch at a time, never the whole collection;
chunking reads a document's whole text a bounded number of times, not once per chunk."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from components.ingestion import pipeline
from components.ingestion.documents import Document
from components.ingestion.pipeline import parse_sources
from components.stores.qdrant import DocState


def test_stored_states_are_asked_for_the_parsed_documents_in_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus.jsonl"
    rows = [{"_id": f"d{i}", "title": f"Doc {i}", "text": f"text number {i}"} for i in range(5)]
    corpus.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    first = parse_sources([{"path": str(corpus), "vault": None}], lambda ids: {})
    assert first.new == 5 and len(first.pending) == 5
    held = {d["doc_id"]: DocState(Document(**d).content_hash, 1, 1, str(corpus)) for d in first.pending[:3]}

    asked: list[list[str]] = []

    def states(ids: Sequence[str]) -> dict[str, DocState]:
        asked.append(list(ids))
        return {i: held[i] for i in ids if i in held}

    monkeypatch.setattr(pipeline, "STATE_BATCH", 2)
    again = parse_sources([{"path": str(corpus), "vault": None}], states)
    assert (again.unchanged, again.new, again.updated, again.documents) == (3, 2, 0, 5)
    assert [len(a) for a in asked] == [2, 2, 1]
    assert sorted(i for a in asked for i in a) == sorted(again.seen_doc_ids)
    assert [d["doc_id"] for d in again.pending] == [d["doc_id"] for d in first.pending[3:]]


def test_a_documents_language_is_detected_once_however_many_chunks_it_has(monkeypatch: pytest.MonkeyPatch) -> None:
    from components.ingestion import documents

    calls: list[int] = []

    def detect(text: str) -> str:
        calls.append(len(text))
        return "en"

    monkeypatch.setattr(documents, "detect_language", detect)
    text = "\n\n".join(f"## Part {i}\n" + f"Paragraph {i} says something about retrieval. " * 30 for i in range(50))
    doc = Document(doc_id="long", text=text, source="long.md", title="Long", format="markdown")
    [record] = pipeline.chunk_records([dataclasses.asdict(doc)], size=300, overlap=50)
    assert len(record["payloads"]) > 100
    assert {p["language"] for p in record["payloads"]} == {"en"}
    assert len(calls) == 1
