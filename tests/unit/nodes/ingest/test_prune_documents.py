"""Pruning: with ``prune``, documents deleted from the given folders leave the index; without it, nothing does."""

from __future__ import annotations

from pathlib import Path

from components.factory import Components
from nodes.ingest import load_sources, parse_documents, prune_documents
from tests.integration.helpers import ingest
from tests.unit.nodes.helpers import run, steps


def titles(c: Components) -> set[str]:
    return {str((p.payload or {}).get("title")) for p in c.index().scroll()}


def test_a_deleted_note_leaves_the_index_only_when_pruning(components: Components, vault: Path) -> None:
    version = ingest(components, vault, sentence_vectors=False)["version"]
    (vault / "味噌汁.md").unlink()
    state = steps(components, {"paths": [str(vault)], "version": version}, load_sources, parse_documents)
    kept = run(prune_documents.make(components), state)
    assert kept == {"pruned": 0, "version": version, "changed_doc_ids": []}
    assert titles(components) == {"Monstera Care", "味噌汁"}
    out = run(prune_documents.make(components), {**state, "prune": True})
    assert out["pruned"] == 1 and out["version"] == version + 1 and len(out["changed_doc_ids"]) == 1
    assert titles(components) == {"Monstera Care"}
