"""Sentence vectors stored at ingestion: extractive answers read them instead of embedding.

What a user would notice: the same answer as embedding at question time, but without the
sentences' embedding (most of an extractive answer's time); an edited note's new sentences are
found and its old ones gone after the next ``rag ingest``; an index built before this existed
gets its sentences on the next run; a store without them still answers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe

from components.factory import Components
from components.heuristics.extractive import extract_answer
from components.ingestion.chunker import stitch_parent
from components.settings import Settings
from components.stores.sentences import section_sentences, sentence_id
from components.text.sentences import candidate_sentences
from graph.context import Context
from graph.ingest import build_ingest_graph
from graph.ingest_state import IngestContext
from graph.rag import build_rag_graph
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import EmbeddedTexts, ingest, sample_store

pytestmark = pytest.mark.integration

QUESTION = "When should I water the monstera?"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Components, Path]]:
    c, vaults = sample_store(tmp_path_factory.mktemp("sentences"))
    yield c, vaults
    c.close()


def _stored_ids(c: Components) -> set[str]:
    return {str(p.id) for p in c.sentences().store.scroll(fields=False)}


def _sections(c: Components) -> dict[str, str]:
    return {i: text for i, (text, _) in _held(c).items()}


def _held(c: Components) -> dict[str, tuple[str, set[str]]]:
    return section_sentences(dict(p.payload or {}) for p in c.index().scroll())


def _listed(c: Components) -> dict[str, set[str]]:
    """Each stored sentence's documents, as its payload lists them."""
    return {str(p.id): set((p.payload or {}).get("doc_id") or []) for p in c.sentences().store.scroll()}


def test_every_section_sentence_is_stored_as_its_question_time_vector(store: Any) -> None:
    c, _ = store
    wanted = _sections(c)
    assert len(wanted) > 50
    assert _stored_ids(c) == set(wanted)
    sample = list(wanted.values())[:: max(1, len(wanted) // 12)]
    stored = c.sentences().lookup(sample)
    assert set(stored) == set(sample)
    fresh = c.embedder.encode_queries(sample, cache=False)
    for text, v in zip(sample, fresh, strict=True):
        assert float(stored[text] @ v) > 0.9999, text


def test_an_extractive_answer_embeds_only_the_question(store: Any) -> None:
    c, _ = store
    graph = build_rag_graph(c)
    ctx = Context(cache=False)
    asyncio.run(graph.ainvoke({"question": "How do I make miso soup?", "mode": "qa"}, context=ctx))  # warm: router
    c.embedder.clear_query_cache()
    with EmbeddedTexts(c) as embedded:
        out = asyncio.run(graph.ainvoke({"question": QUESTION, "mode": "qa"}, context=ctx))
    assert out["path"] == "extractive" and "top 5 cm" in out["answer"], out["answer"]
    assert embedded == [QUESTION]
    # and the answer is the one embedding the sentences at question time gives
    sections: dict[str, list[dict[str, Any]]] = {}
    for p in c.index().scroll():
        pl = dict(p.payload or {})
        if "Monstera" in str(pl.get("title")):
            sections.setdefault(str(pl["parent_id"]), []).append(pl)
    passages = [stitch_parent(chunks) for chunks in sections.values()]
    c.embedder.clear_query_cache()
    kw: dict[str, Any] = {"tokenize": c.tokenizer, "idf": c.corpus().idf}
    by_store = extract_answer(QUESTION, passages, embed=c.sentences().embed, **kw)
    c.embedder.clear_query_cache()
    by_model = extract_answer(QUESTION, passages, embed=c.embedder.encode_queries, **kw)
    assert (by_store.answer, by_store.used_sources) == (by_model.answer, by_model.used_sources)
    # A stored vector is the question-time one to cosine >= 0.9999, not bit for bit: under bf16
    # (auto on CPUs with native bf16) an encoding depends on the batch it ran in. The confidence,
    # rounded to 3 places, may therefore differ in its last place, and by no more.
    assert abs(by_store.confidence - by_model.confidence) <= 0.001 + 1e-9


def test_a_reingested_edit_adds_its_new_sentences_and_drops_the_old(store: Any) -> None:
    c, vaults = store
    note = vaults / "life" / "Monstera Care.md"
    old = next(s for s in candidate_sentences(note.read_text(encoding="utf-8")) if "top 5 cm" in s)
    note.write_text(note.read_text(encoding="utf-8").replace("top 5 cm", "top 6 cm"), encoding="utf-8")
    with EmbeddedTexts(c) as embedded:
        out = ingest(c, vaults)
    new = old.replace("top 5 cm", "top 6 cm")
    assert out["failures"] == [] and out["sentences_embedded"] >= 1
    assert new in embedded and old not in embedded
    ids = _stored_ids(c)
    assert sentence_id(new) in ids and sentence_id(old) not in ids
    assert ids == set(_sections(c))
    assert _listed(c) == {i: docs for i, (_, docs) in _held(c).items()}  # reconciled for that note alone
    # nothing changed since: the next run embeds nothing
    with EmbeddedTexts(c) as embedded:
        again = ingest(c, vaults)
    assert embedded == [] and again["sentences_embedded"] == 0


def test_an_index_without_sentence_vectors_gets_them_on_the_next_run(tmp_path: Path) -> None:
    s = Settings(qdrant_path=tmp_path / "qdrant", data_dir=tmp_path / "data", _env_file=None)  # type: ignore[call-arg]
    c = Components(s)
    try:
        graph = build_ingest_graph(c)
        first = asyncio.run(
            graph.ainvoke({"paths": [str(SAMPLE_VAULTS)]}, context=IngestContext(sentence_vectors=False))
        )
        assert first["written_chunks"] > 0 and not c.sentences().store.exists()
        # a store without them still answers, embedding the sentences itself
        out = asyncio.run(
            build_rag_graph(c).ainvoke({"question": QUESTION, "mode": "qa"}, context=Context(cache=False))
        )
        assert "top 5 cm" in out["answer"]
        second = ingest(c, SAMPLE_VAULTS)
        assert second["written_chunks"] == 0 and second["sentences_embedded"] == second["sentences"] > 50
        assert _stored_ids(c) == set(_sections(c))
    finally:
        c.close()


def test_sentences_cut_by_a_chunk_boundary_are_stored_whole() -> None:
    section = "First sentence is here. The second sentence runs across the cut. Third one."
    cut = section.index("across")
    chunks = [
        {
            "chunk_id": "d#0",
            "chunk_index": 0,
            "parent_id": "d/s",
            "parent_start": 0,
            "parent_end": cut,
            "text": section[:cut].strip(),
        },
        {
            "chunk_id": "d#1",
            "chunk_index": 1,
            "parent_id": "d/s",
            "parent_start": cut,
            "parent_end": len(section),
            "text": section[cut:],
        },
    ]
    assert stitch_parent(chunks) == section
    assert sorted(text for text, _ in section_sentences(chunks).values()) == sorted(candidate_sentences(section))


def test_a_sentence_two_notes_share_goes_with_the_last_of_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    c, vaults = sample_store(tmp_path)
    try:
        notes = vaults / "life"
        shared = "The shared sentence about rainwater is in both notes."
        (notes / "Rain A.md").write_text(
            f"# Rain A\n{shared} Only the first note says this about rain barrels.\n", encoding="utf-8"
        )
        (notes / "Rain B.md").write_text(
            f"# Rain B\n{shared} Only the second note says that about gutters.\n", encoding="utf-8"
        )
        with caplog.at_level("INFO", logger="components.stores.sentences"):
            ingest(c, vaults)
        assert "the changed documents" in caplog.text  # the two notes, not the whole collection
        listed = _listed(c)
        assert len(listed[sentence_id(shared)]) == 2
        assert listed == {i: docs for i, (_, docs) in _held(c).items()}
        (notes / "Rain A.md").unlink()
        ingest(c, vaults, prune=True)
        listed = _listed(c)
        assert (
            len(listed[sentence_id(shared)]) == 1
            and sentence_id("Only the first note says this about rain barrels.") not in listed
        )
        (notes / "Rain B.md").unlink()
        ingest(c, vaults, prune=True)
        assert sentence_id(shared) not in _stored_ids(c)
        assert _listed(c) == {i: docs for i, (_, docs) in _held(c).items()}
    finally:
        c.close()


def test_sentences_an_earlier_version_stored_without_their_notes_are_listed_whole(tmp_path: Path) -> None:
    c, vaults = sample_store(tmp_path)
    try:
        store = c.sentences().store
        store.client.delete_payload(store.collection, keys=["doc_id"], points=qe.Filter())
        store.update_metadata(refs=False)  # as an earlier version left it
        (vaults / "life" / "Tea.md").write_text("# Tea\nGreen tea wants water at 70 degrees.\n", encoding="utf-8")
        with EmbeddedTexts(c) as embedded:
            ingest(c, vaults)
        # the new note's chunk and its sentence; no stored sentence embedded again
        assert len(embedded) == 2 and "Green tea wants water at 70 degrees." in embedded
        assert _listed(c) == {i: docs for i, (_, docs) in _held(c).items()}
    finally:
        c.close()
