"""The first ingestion step: which files will be read, which cannot be, and into which collection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from components.factory import Components
from graph.ingest_state import IngestContext
from nodes.ingest import load_sources
from tests.unit.nodes.helpers import run


def test_the_notes_under_a_folder_are_found_and_a_missing_path_is_reported(components: Components, vault: Path) -> None:
    (vault / "photo.jpg").write_bytes(b"\xff\xd8")
    events: list[Any] = []
    out = run(load_sources.make(components), {"paths": [str(vault), str(vault / "gone.md")]}, events=events)
    assert sorted(Path(f["path"]).name for f in out["files"]) == ["Monstera Care.md", "味噌汁.md"]
    assert out["ignored"] == 1
    [failure] = out["failures"]
    assert "gone.md" in str(failure)
    assert events == [{"event": "found", "files": 2, "failures": 1}]
    assert out["collection"] == components.settings.collection
    assert out["written_documents"] == out["written_chunks"] == 0 and out["changed_doc_ids"] is None


def test_the_runs_context_names_the_collection(components: Components, vault: Path) -> None:
    out = run(load_sources.make(components), {"paths": [str(vault)]}, IngestContext(collection="papers"))
    assert out["collection"] == "papers"
