"""Sentence vectors for extractive answers: embedded after the write, only for what it changed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from components.factory import Components
from graph.ingest_state import IngestContext
from nodes.ingest import index_sentences
from tests.integration.helpers import ingest
from tests.unit.nodes.helpers import run


def test_the_written_notes_sentences_are_stored_and_not_embedded_twice(components: Components, vault: Path) -> None:
    written = ingest(components, vault, sentence_vectors=False)
    state = {
        "collection": written["collection"],
        "changed_doc_ids": ["*"],
        "base_version": -1,
        "started": time.time() - 60,
    }
    events: list[Any] = []
    out = run(index_sentences.make(components), state, IngestContext(), events=events)
    assert out["sentences"] == out["sentences_embedded"] > 10 and out["seconds"] >= 60
    assert events and events[-1]["event"] == "sentences"
    again = run(index_sentences.make(components), {**state, "changed_doc_ids": []}, IngestContext())
    assert again["sentences"] == out["sentences"] and again["sentences_embedded"] == 0


def test_switched_off_nothing_is_embedded(notes: Components) -> None:
    state = {"collection": notes.index().collection, "changed_doc_ids": ["*"]}
    out = run(index_sentences.make(notes), state, IngestContext(sentence_vectors=False))
    assert set(out) == {"seconds"}
