"""The metadata-question benchmark's figures: routes against expected routes, listed documents against
expected ones (an empty listing expected and given counts as right), the data file's shape checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.metadata_route import DATA, Asked, figures, misses, read_questions


def asked(route: str, expected_route: str, listed: tuple[str, ...], expected: tuple[str, ...] | None) -> Asked:
    return Asked("q", "en", "check", expected_route, route, expected, listed, answered=bool(listed))


def test_routes_and_listings_are_scored_against_what_was_expected() -> None:
    rows = [
        asked("metadata_search", "metadata_search", ("/v/life/a.md", "/v/life/b.md"), ("life/a.md",)),
        asked("vector_search", "metadata_search", (), ("life/c.md",)),  # missed: falls back to vector search
        asked("metadata_search", "metadata_search", (), ()),  # nothing to list, and nothing listed
        asked("vector_search", "vector_search", (), None),
    ]
    f = figures(rows)
    assert (f["route_accuracy"], f["metadata_routed"], f["mixed_kept_on_vector"]) == (0.75, 0.6667, 1.0)
    # listed 2 (+1 empty-right), right 1 (+1); expected 2 (+1), found 1 (+1)
    assert (f["precision"], f["recall"]) == (0.6667, 0.6667)
    assert [m["expected_route"] for m in misses(rows)] == ["metadata_search", "metadata_search"]


def test_the_shipped_questions_read_and_a_bad_line_is_named(tmp_path: Path) -> None:
    rows = read_questions(DATA)
    assert len(rows) >= 40 and {r["lang"] for r in rows} == {"en", "ja"}
    assert {r["split"] for r in rows} == {"tune", "check"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "x1", "question": "notes?", "route": "sql"}) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="x1"):
        read_questions(bad)
