"""`python -m evals.oneshot` times the one-shot commands alone and through `rag serve` and reports both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals import oneshot

pytestmark = pytest.mark.integration


def test_the_benchmark_times_both_modes_and_writes_its_report(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"_id": f"d{i}", "title": f"Note {i}", "text": f"Vitamin D and topic {i}. " * 5}) + "\n"
            for i in range(6)
        ),
        encoding="utf-8",
    )
    report_path = tmp_path / "oneshot.json"
    # no untimed warm-up runs: the test checks what is timed and reported, not how warm the cache is
    args = ["--corpus", str(corpus), "--limit", "6", "--runs", "1", "--warmup", "0", "--report", str(report_path)]
    assert oneshot.main(args) == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["chunks"] == 6 and report["server_ready_s"] > 0
    rows = {r["command"]: r for r in report["rows"]}
    assert set(rows) == {"search", "ask", "status", "help"}
    for r in rows.values():
        assert r["alone_p50_s"] > 0 and r["served_p50_s"] > 0 and r["speedup"] > 0
    # the served runs went to the server: one timed run of each command and the status that asked it
    assert report["server_requests"] >= 3 + 1 and report["warmup"] == 0
    assert report_path.with_suffix(".png").stat().st_size > 0


def test_against_a_revision_times_its_code_beside_this_tree(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        "".join(json.dumps({"_id": f"d{i}", "title": f"N{i}", "text": f"Iron, topic {i}."}) + "\n" for i in range(3)),
        encoding="utf-8",
    )
    report_path = tmp_path / "against.json"
    args = ["--corpus", str(corpus), "--limit", "3", "--runs", "1", "--warmup", "0", "--against", "HEAD"]
    assert oneshot.main([*args, "--report", str(report_path)]) == 0
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["against"] == "HEAD" and report["chunks"] == 3
    rows = {r["command"]: r for r in report["rows"]}
    assert set(rows) == {"search", "ask", "status", "help"}
    assert all(r["baseline_p50_s"] > 0 and r["p50_s"] > 0 for r in rows.values())
    assert report_path.with_suffix(".png").stat().st_size > 0


def test_each_question_is_asked_once() -> None:
    pool = oneshot.questions(None, 6)
    assert len(set(pool)) == 6
    with pytest.raises(SystemExit):
        oneshot.questions(None, len(oneshot.BUILT_IN_QUESTIONS) + 1)
