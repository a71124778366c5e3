"""Parsing asks the index about the documents at hand, a batch at a time, never the whole collection;
chunking reads a document's whole text a bounded number of times, not once per chunk."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from components.ingestion import pipeline
from components.ingestion.documents import Document
from components.ingestion.loaders.source import SourceFile
from components.ingestion.pipeline import parse_sources
from components.settings import Settings
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


def _parsed(folder: Path, **kw: Any) -> pipeline.ParseResult:
    """What parsing finds in the files of ``folder``, none of them indexed yet."""
    files = [{"path": str(p), "vault": None} for p in sorted(folder.iterdir())]
    return parse_sources(files, lambda ids: {}, **kw)


def test_a_file_over_the_size_limit_is_reported_with_the_setting_and_the_rest_is_parsed(
    tmp_path: Path, settings: Settings
) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    big = notes / "big.txt"
    with big.open("wb") as f:  # sparse: 30 MB on paper, nothing on disk
        f.truncate(30_000_000)
    (notes / "a.md").write_text("# A\nA small note.\n", encoding="utf-8")
    (notes / "b.md").write_text("# B\nAnother small note.\n", encoding="utf-8")
    out = _parsed(notes, max_bytes=settings.max_document_bytes)
    assert [Path(d["doc_id"]).name for d in out.pending] == ["a.md", "b.md"]
    [failure] = out.failures
    assert failure["source"] == str(big)
    assert failure["reason"].startswith("the file is 30 MB, over the 20 MB limit for one document")
    assert "raise MAX_DOCUMENT_MB (to 30 for this one)" in failure["reason"]
    assert out.unsafe_origins == [str(big)]


def test_a_corpus_is_limited_per_record_not_as_a_whole(tmp_path: Path) -> None:
    rows = [{"_id": f"d{i}", "title": f"Doc {i}", "text": "word " * 400} for i in range(5)]
    rows[2]["text"] = "長い" * 3000  # 6,000 characters, 18,000 bytes in UTF-8
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    out = _parsed(tmp_path, max_bytes=10_000)  # the file (about 28 kB) is over it, each other record under
    assert [d["doc_id"] for d in out.pending] == ["d0", "d1", "d3", "d4"]
    [failure] = out.failures
    assert failure["reason"].startswith("document 'd2' is 0.018 MB, over the 0.01 MB limit")


def test_a_file_its_parser_fails_on_is_reported_and_the_others_are_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from components.ingestion import loaders

    real = loaders.LOADERS[".md"]

    def flaky(src: SourceFile) -> Any:
        if src.path.name == "b.md":
            raise RecursionError("maximum recursion depth exceeded")
        return real(src)

    monkeypatch.setitem(loaders.LOADERS, ".md", flaky)
    for name in ("a.md", "b.md", "c.md"):
        (tmp_path / name).write_text(f"# {name}\nA note.\n", encoding="utf-8")
    out = _parsed(tmp_path)
    assert [Path(d["doc_id"]).name for d in out.pending] == ["a.md", "c.md"]
    assert out.failures == [
        {
            "source": str(tmp_path / "b.md"),
            "reason": "could not be parsed (RecursionError: maximum recursion depth exceeded)",
        }
    ]
