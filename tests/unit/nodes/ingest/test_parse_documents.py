"""Parsing: only documents that are new or changed since the last run go on to be written."""

from __future__ import annotations

from pathlib import Path

from components.factory import Components
from nodes.ingest import load_sources, parse_documents
from tests.integration.helpers import ingest
from tests.unit.nodes.helpers import steps


def parsed(c: Components, vault: Path) -> dict[str, object]:
    return steps(c, {"paths": [str(vault)]}, load_sources, parse_documents)


def test_into_a_new_collection_every_document_is_new(components: Components, vault: Path) -> None:
    out = parsed(components, vault)
    assert out["documents"] == out["new"] == 2 and out["unchanged"] == 0
    assert sorted(d["title"] for d in out["pending"]) == ["Monstera Care", "味噌汁"]  # type: ignore[attr-defined]
    assert out["base_version"] == -1


def test_an_unchanged_document_is_skipped_and_an_edited_one_is_written_again(
    components: Components, vault: Path
) -> None:
    ingest(components, vault, sentence_vectors=False)
    note = vault / "Monstera Care.md"
    note.write_text(note.read_text(encoding="utf-8") + "\n- 2025-09-01: Tenth leaf.\n", encoding="utf-8")
    out = parsed(components, vault)
    assert (out["new"], out["updated"], out["unchanged"]) == (0, 1, 1)
    assert [d["title"] for d in out["pending"]] == ["Monstera Care"]  # type: ignore[attr-defined]
    assert out["base_version"] >= 1  # type: ignore[operator]
