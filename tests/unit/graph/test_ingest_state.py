"""The documents a run changed: added up over its batches, started afresh by each run, and
collapsed to 'too many to list' before they weigh on every checkpoint."""

from __future__ import annotations

from graph.ingest_state import MANY_CHANGED, MAX_CHANGED, _changed


def test_changed_documents_add_up_and_each_run_starts_afresh() -> None:
    first = _changed(_changed(None, ["a", "b"]), ["c"])
    assert first == ["a", "b", "c"]
    assert _changed(first, None) == []  # the next run's first node


def test_too_many_changed_documents_become_one_marker_that_stays() -> None:
    many = _changed([], [f"d{i}" for i in range(MAX_CHANGED + 1)])
    assert many == [MANY_CHANGED]
    assert _changed(many, ["late"]) == [MANY_CHANGED]
    assert len(_changed([], [f"d{i}" for i in range(MAX_CHANGED)])) == MAX_CHANGED
