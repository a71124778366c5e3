"""After a write the collection's term statistics are loaded, so the first search does not wait; a
failure is only logged."""

from __future__ import annotations

import logging

import pytest

from components.factory import Components
from nodes.ingest import refresh_bm25
from tests.unit.nodes.helpers import run


def test_the_statistics_of_the_written_collection_are_ready(
    notes: Components, caplog: pytest.LogCaptureFixture
) -> None:
    written = {"collection": notes.index().collection, "written_chunks": 1}
    with caplog.at_level(logging.INFO, logger="nodes.ingest.refresh_bm25"):
        assert run(refresh_bm25.make(notes), written) == {}
    assert f"collection statistics: {len(list(notes.index().scroll()))} chunks" in caplog.text


def test_nothing_written_nothing_done_and_a_failure_is_only_logged(
    components: Components, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="nodes.ingest.refresh_bm25"):
        assert run(refresh_bm25.make(components), {"collection": "missing"}) == {}
        assert caplog.text == ""
        assert run(refresh_bm25.make(components), {"collection": "missing", "written_chunks": 1}) == {}
    assert "collection statistics not refreshed after ingestion" in caplog.text
