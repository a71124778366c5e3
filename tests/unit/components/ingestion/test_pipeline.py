"""Parsing asks the index about the documents at hand, a batch at a time, never the whole collection."""

from __future__ import annotations

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
