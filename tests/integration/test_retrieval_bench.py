"""The retrieval benchmark end to end on a tiny BEIR folder (real model, embedded Qdrant, LangChain baseline)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli import search_cmd
from components.factory import Components
from evals import retrieval

DOCS = [
    ("d1", "Axolotl regeneration", "The axolotl regrows whole limbs after amputation through blastema formation."),
    ("d2", "Tardigrade survival", "Tardigrades survive desiccation by producing trehalose and disordered proteins."),
    ("d3", "Volcanic soils", "Andosols form on volcanic ash and hold unusually large amounts of organic carbon."),
    ("d4", "Coffee chemistry", "Roasting coffee beans triggers the Maillard reaction that creates aroma compounds."),
    ("d5", "Glacier motion", "Glaciers move by internal deformation of ice and by sliding over their beds."),
    ("d6", "Bird migration", "Many songbirds migrate at night and navigate using the magnetic field of the earth."),
]
QUERIES = [
    ("q1", "How does the axolotl regrow limbs with a blastema?", "d1"),
    ("q2", "Why do tardigrades survive desiccation with trehalose?", "d2"),
    ("q3", "Which andosols store carbon in volcanic ash?", "d3"),
]
MODES = ["bm25", "dense", "hybrid", "langchain"]
METRICS = ["ndcg@10", "recall@5", "recall@10", "recall@100", "mrr@10"]


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    root = tmp_path / "tinybeir"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": t, "text": x}) + "\n" for i, t, x in DOCS), encoding="utf-8"
    )
    (root / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": q, "text": text}) + "\n" for q, text, _ in QUERIES), encoding="utf-8"
    )
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, _, d in QUERIES), encoding="utf-8"
    )
    return root


@pytest.mark.integration
def test_benchmark_reports_every_mode(beir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("QDRANT_URL", raising=False)
    monkeypatch.delenv("RERANKER_MODEL", raising=False)
    report_path = tmp_path / "report.json"
    args = [str(beir), "--modes", ",".join(MODES), "--store", str(tmp_path / "store")]

    code = retrieval.main([*args, "--report", str(report_path), "--runs", str(tmp_path / "runs"), "--no-progress"])

    assert code == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["queries"] == 3
    assert report["ingest"]["documents"] == 6
    assert set(report["modes"]) == set(MODES)
    for mode, r in report["modes"].items():
        for m in METRICS:
            assert 0.0 <= r[m] <= 1.0, (mode, m, r[m])
        assert r["latency_ms"]["p50"] > 0, mode
        assert r["latency_ms"]["p95"] > 0, mode
        assert r["latency_ms"]["n"] == 3
    # each query shares its rare words with exactly its relevant document
    assert report["modes"]["bm25"]["ndcg@10"] == 1.0
    assert report["modes"]["langchain"]["p50_vs_langchain"] == pytest.approx(1.0)

    # a second run reuses the store: nothing is embedded again
    again_path = tmp_path / "again.json"
    assert retrieval.main([*args, "--modes", "bm25", "--report", str(again_path), "--no-progress"]) == 0
    again = json.loads(again_path.read_text(encoding="utf-8"))
    assert again["ingest"]["unchanged"] == 6
    assert again["ingest"]["written_chunks"] == 0


@pytest.mark.integration
def test_the_benchmark_ranks_as_rag_search_batch_does(
    beir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The benchmark measures the command users run: its hybrid rankings are the batch's, line for line."""
    store = tmp_path / "store"
    args = [str(beir), "--modes", "hybrid,bm25", "--k", "5", "--store", str(store), "--runs", str(tmp_path / "runs")]
    assert retrieval.main([*args, "--report", str(tmp_path / "report.json"), "--no-progress"]) == 0
    capsys.readouterr()

    c = Components(retrieval.make_settings(store, retrieval.collection_name(beir)))
    try:
        assert search_cmd.batch(c, beir / "queries.jsonl", search_cmd.SearchRequest(top_k=5)) == len(QUERIES)
    finally:
        c.close()
    batch = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    bench = [json.loads(line) for line in (tmp_path / "runs" / "hybrid.jsonl").read_text().splitlines()]
    assert [(b["query_id"], [d["doc_id"] for d in b["results"]]) for b in batch] == [
        (b["query_id"], [d["doc_id"] for d in b["results"]]) for b in bench
    ]
    assert all(len(b["results"]) == 5 for b in batch)
    # a mode is the same search with another Context: BM25 alone ranks differently from the fusion
    lexical = [json.loads(line) for line in (tmp_path / "runs" / "bm25.jsonl").read_text().splitlines()]
    assert [b["results"] for b in lexical] != [b["results"] for b in bench]
