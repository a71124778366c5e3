"""The delta benchmark at a toy size: a store copied to twice its size holds whole documents with
their statistics and sentences, and the edited documents go through the product's ingestion,
alone and through `rag serve`, reported as a table, JSON and a plot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from components.factory import Components
from components.settings import Settings
from components.stores.termstats import TermStats
from evals import delta
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import ingest

pytestmark = pytest.mark.integration


def settings(root: Path) -> Settings:
    return Settings(qdrant_path=root / "qdrant", data_dir=root / "data", _env_file=None)  # type: ignore[call-arg]


@pytest.fixture
def source(tmp_path: Path) -> tuple[Path, int]:
    shutil.copytree(SAMPLE_VAULTS / "life", tmp_path / "life")
    c = Components(settings(tmp_path / "source"))
    assert ingest(c, tmp_path / "life")["failures"] == []
    chunks = c.index().count()
    c.close()
    return tmp_path / "source", chunks


def test_a_copied_store_holds_every_document_twice_with_its_statistics_and_sentences(
    source: tuple[Path, int], tmp_path: Path
) -> None:
    root, chunks = source
    built = delta.build(root / "qdrant", tmp_path / "copy", 2 * chunks, lambda done, total: None)
    assert built["chunks"] == 2 * chunks and built["source_chunks"] == chunks
    c = Components(settings(tmp_path / "copy"))
    try:
        docs = {str(p.payload["doc_id"]) for p in c.index().scroll(fields=["doc_id"])}
        originals = {d for d in docs if delta.COPY not in d}
        assert docs == originals | {f"{d}{delta.COPY}1" for d in originals}
        listed = [set(p.payload["doc_id"]) for p in c.sentences().store.scroll()]
        assert listed
        for holders in listed:  # each sentence: the documents holding it, and their copies
            first = {d for d in holders if delta.COPY not in d}
            assert first and holders == first | {f"{d}{delta.COPY}1" for d in first}
        stats = TermStats.load(c.terms_path())
        version = int(c.index().metadata()["version"])
        assert stats is not None and (stats.chunks, stats.version) == (2 * chunks, version)
        assert c.sentences().state(version)["current"]
    finally:
        c.close()


def test_the_delta_is_measured_alone_and_through_rag_serve(source: tuple[Path, int], tmp_path: Path) -> None:
    root, chunks = source
    report = tmp_path / "delta.json"
    args = ["--qdrant-path", str(root / "qdrant"), "--sizes", f"0,{2 * chunks}", "--docs", "3"]
    assert delta.main([*args, "--report", str(report), "--work", str(tmp_path / "w")]) == 0
    rows = json.loads(report.read_text(encoding="utf-8"))["rows"]
    assert [r["size"] for r in rows] == [chunks, 2 * chunks]
    for r in rows:
        assert r["delta_documents"] == r["written_documents"] == 3
        assert r["wall_s"] > r["nodes"]["embed_chunks"] > 0 and r["served_wall_s"] > 0
    assert report.with_suffix(".png").stat().st_size > 10_000
