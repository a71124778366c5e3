"""The QA file an evaluation run reads: what it accepts, and how it reports what it does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.qa_dataset import DatasetError, load_qa


def write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "qa.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_jsquad_style_line_reads_with_its_references(tmp_path: Path) -> None:
    line = {
        "id": "a1q1",
        "question": "小笠原諸島に梅雨はあるか",
        "ground_truth": "ない",
        "ground_truths": ["ない"],
        "contexts": ["小笠原諸島は梅雨がない。"],
        "context_ids": ["a1"],
        "title": "梅雨",
    }
    [s] = load_qa(write(tmp_path, json.dumps(line, ensure_ascii=False)))
    assert s.id == "a1q1" and s.ground_truths == ["ない"] and s.context_ids == ["a1"]
    assert s.answerable and s.extra == {"title": "梅雨"}


def test_one_reference_form_fills_the_other_and_ids_default_to_the_line(tmp_path: Path) -> None:
    a, b = load_qa(
        write(
            tmp_path, '{"question": "Q1", "ground_truths": ["x", "y"]}', "", '{"question": "Q2", "ground_truth": "z"}'
        )
    )
    assert (a.id, a.ground_truth) == ("line-1", "x")
    assert (b.id, b.ground_truths) == ("line-3", ["z"])


def test_malformed_lines_are_all_reported_with_their_numbers(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '{"question": "fine"}',
        "{not json",
        '["a", "list"]',
        '{"question": ""}',
        '{"question": "Q", "context_ids": "a1"}',
        '{"id": "line-1", "question": "again"}',
    )
    with pytest.raises(DatasetError) as e:
        load_qa(path)
    msg = str(e.value)
    assert "5 malformed line(s)" in msg
    for n in (2, 3, 4, 5, 6):
        assert f"line {n}:" in msg
    assert "line 1:" not in msg and "context_ids" in msg and "already used on line 1" in msg


def test_an_empty_file_and_a_missing_file_say_what_is_needed(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no questions"):
        load_qa(write(tmp_path, "", "  "))
    with pytest.raises(DatasetError, match="no such file"):
        load_qa(tmp_path / "missing.jsonl")
