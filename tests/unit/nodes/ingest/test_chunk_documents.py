"""Chunking: the next batch of pending documents is cut into chunks; a bad overlap stops the run first."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.factory import Components
from components.resilience.errors import ConfigurationError
from graph.ingest_state import IngestContext
from nodes.ingest import chunk_documents, load_sources, parse_documents
from tests.unit.nodes.helpers import run, steps


def test_one_batch_is_chunked_and_the_rest_waits(components: Components, vault: Path) -> None:
    state = steps(components, {"paths": [str(vault)]}, load_sources, parse_documents)
    out = run(chunk_documents.make(components), state, IngestContext(batch_documents=1))
    [record] = out["batch"]
    assert len(out["pending"]) == 1 and record["doc_id"] != out["pending"][0]["doc_id"]
    sections = [p["section_hierarchy"] for p in record["payloads"]]
    assert len(sections) == len(record["texts"]) > 1 and all(sections)


def test_an_overlap_not_smaller_than_the_chunk_size_is_refused_before_anything_is_written(
    components: Components, vault: Path
) -> None:
    state = steps(components, {"paths": [str(vault)]}, load_sources, parse_documents)
    with pytest.raises(ConfigurationError, match=r"chunk_overlap \(500\) must be .* smaller than chunk_size \(400\)"):
        run(chunk_documents.make(components), state, IngestContext(chunk_size=400, chunk_overlap=500))
    assert not components.index().exists()
