"""Scoring a `rag search --batch` run file: what an evaluation harness reads back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import score_run


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "train.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\nq3\td3\t0\n", encoding="utf-8"
    )
    return tmp_path


def write_run(path: Path, rows: dict[str, list[str]]) -> Path:
    lines = []
    for qid, docs in rows.items():
        # ranks deliberately written out of order: the scorer must sort by rank, not by line position
        results = [
            {"doc_id": d, "chunk_id": f"{d}#0", "score": 1.0 / (i + 1), "rank": i + 1} for i, d in enumerate(docs)
        ]
        lines.append(json.dumps({"query_id": qid, "results": list(reversed(results))}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_perfect_run_scores_one_and_ranks_are_respected(beir: Path, tmp_path: Path) -> None:
    run = score_run.read_run(write_run(tmp_path / "run.jsonl", {"q1": ["d1", "dx"], "q2": ["d2"]}))
    result = score_run.score(run, score_run.load_qrels(beir, "train"))
    assert result["ndcg@10"] == pytest.approx(1.0)
    assert result["mrr@10"] == pytest.approx(1.0)
    assert result["judged_queries"] == 2  # q3's only judgement is 0: not a judged query
    assert result["missing"] == 0


def test_missing_queries_count_as_zero(beir: Path, tmp_path: Path) -> None:
    run = score_run.read_run(write_run(tmp_path / "run.jsonl", {"q1": ["d1"], "q9": ["d9"]}))
    result = score_run.score(run, score_run.load_qrels(beir, "train"))
    assert result["ndcg@10"] == pytest.approx(0.5)
    assert result["missing"] == 1
    assert result["unjudged_in_run"] == 1


def test_a_line_that_breaks_the_contract_names_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "run.jsonl"
    bad.write_text('{"query_id": "q1", "results": []}\n{"id": "q2"}\n', encoding="utf-8")
    with pytest.raises(score_run.RunFileError, match=r"run.jsonl:2: .*query_id"):
        score_run.read_run(bad)


def test_cli_writes_the_report(beir: Path, tmp_path: Path) -> None:
    run = write_run(tmp_path / "run.jsonl", {"q1": ["dx", "d1"], "q2": ["d2"]})
    report = tmp_path / "out" / "score.json"
    assert score_run.main([str(beir), str(run), "--split", "train", "--report", str(report)]) == 0
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["mrr@10"] == pytest.approx(0.75)
