"""After a write the store indexes what was written; a failure costs search speed only, never the ingestion."""

from __future__ import annotations

import logging

import pytest

from components.factory import Components
from nodes.ingest import optimize_index
from tests.unit.nodes.helpers import run


def test_the_written_collection_is_optimised(notes: Components, caplog: pytest.LogCaptureFixture) -> None:
    written = {"collection": notes.index().collection, "written_chunks": 3}
    with caplog.at_level(logging.INFO, logger="nodes.ingest.optimize_index"):
        assert run(optimize_index.make(notes), written) == {}
    assert "index optimised" in caplog.text


def test_nothing_written_nothing_done_and_a_failure_is_only_logged(
    components: Components, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="nodes.ingest.optimize_index"):
        assert run(optimize_index.make(components), {"collection": "missing"}) == {}
        assert caplog.text == ""
        assert run(optimize_index.make(components), {"collection": "missing", "pruned": 1}) == {}
    assert "index not optimised after ingestion (searches stay exact)" in caplog.text
