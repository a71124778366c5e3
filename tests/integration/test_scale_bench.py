"""The scale benchmark end to end at a toy size: both engines built from a real store's chunks,
measured in a fresh process, reported as a table, JSON and a plot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from components.factory import Components
from components.settings import Settings
from evals import scale
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import ingest

pytestmark = pytest.mark.integration


def test_both_engines_are_built_measured_and_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(SAMPLE_VAULTS / "life", tmp_path / "life")
    settings = Settings(qdrant_path=tmp_path / "qdrant", data_dir=tmp_path / "data", _env_file=None)  # type: ignore[call-arg]
    c = Components(settings)
    assert ingest(c, tmp_path / "life")["failures"] == []
    c.close()
    monkeypatch.setenv("QDRANT_PATH", str(tmp_path / "qdrant"))
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    report = tmp_path / "scale.json"

    assert (
        scale.main(["--sizes", "300", "--queries", "10", "--report", str(report), "--work", str(tmp_path / "w")]) == 0
    )

    rows = json.loads(report.read_text(encoding="utf-8"))["rows"]
    assert sorted(r["engine"] for r in rows) == ["edge", "local"]
    for r in rows:
        assert r["size"] == 300 and r["open_s"] > 0 and r["delta_s"] > 0
        assert 0 < r["plain_p50_ms"] <= r["plain_p95_ms"] and 0 < r["filtered_p50_ms"] <= r["filtered_p95_ms"]
    assert report.with_suffix(".png").stat().st_size > 10_000


def test_a_copy_keeps_a_real_chunk_and_the_filter_keeps_a_tenth() -> None:
    import numpy as np

    src = scale.Source(np.eye(3, dtype=np.float32), [{"doc_id": d, "text": "x"} for d in "abc"], [["x"]] * 3)
    made = list(scale.copies(src, 30))
    assert [m[2]["vault"] for m in made].count(scale.FILTER_VAULT) == 3
    assert all(abs(float(np.linalg.norm(v)) - 1) < 1e-5 for _, v, _ in made)
    assert len({m[2]["doc_id"] for m in made}) == 30 and made[4][2]["source_index"] == 1


def test_bm25_inside_the_engine_ranks_as_today(tmp_path: Path) -> None:
    from evals import lexical_engine

    beir = tmp_path / "tiny"
    (beir / "qrels").mkdir(parents=True)
    docs = {"d1": "axolotl limbs regrow from a blastema", "d2": "tardigrades survive drying with trehalose"}
    docs |= {f"d{i}": f"glaciers move over their beds, report {i}" for i in range(3, 7)}
    queries = {"q1": "axolotl blastema", "q2": "trehalose tardigrades", "q3": "小笠原諸島 glaciers report 5"}
    (beir / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": d, "title": "", "text": t}) + "\n" for d, t in docs.items())
    )
    (beir / "queries.jsonl").write_text("".join(json.dumps({"_id": q, "text": t}) + "\n" for q, t in queries.items()))
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td5\t1\n")
    report = tmp_path / "lexical.json"
    assert lexical_engine.main([f"{beir}:test", "--report", str(report)]) == 0
    (result,) = json.loads(report.read_text(encoding="utf-8"))
    assert result["documents"] == 6 and result["queries"] == 3
    # each query names its document's rare words: both find it first
    assert result["today"]["mrr@10"] == 1.0 and result["engine"]["mrr@10"] == 1.0
