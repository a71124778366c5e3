"""Shaping ranked candidates into results: each job returns new values and leaves its inputs as they were."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from components.retrieval.hits import HitRecord
from components.settings import Settings
from components.text.messages import NOTHING_RELEVANT
from graph.context import Context
from graph.retrieval_state import RetrievalState
from nodes.rag.common import hit_to_result
from nodes.rag.rerank_results import NO_RERANKER, reranked
from nodes.rag.shaping import above_minimum, calibrated, debug_details, head, shape_results


def hit(point_id: str, score: float, doc_id: str, text: str = "") -> HitRecord:
    payload = {"chunk_id": point_id, "doc_id": doc_id, "text": text or f"text of {point_id}", "title": doc_id}
    return HitRecord(point_id=point_id, score=score, payload=payload, ranks={"dense": 1}, scores={"dense": score})


@pytest.fixture(scope="module")
def components(tmp_path_factory: pytest.TempPathFactory) -> Components:
    tmp: Path = tmp_path_factory.mktemp("shaping")
    return Components(Settings(qdrant_path=tmp / "q", data_dir=tmp / "d"))


def test_the_cross_encoders_order_comes_as_new_records() -> None:
    fused = [hit("a", 0.9, "d1"), hit("b", 0.8, "d2"), hit("c", 0.7, "d3")]
    before = copy.deepcopy(fused)
    out = reranked(fused, [0.1, 0.95, 0.5])
    assert [h["point_id"] for h in out] == ["b", "c", "a"]
    assert out[0]["score"] == 0.95 and out[0]["scores"] == {"dense": 0.8, "rerank": 0.95}
    assert fused == before  # the fused candidates in the state are not touched
    assert [h["point_id"] for h in reranked(fused, [0.5, 0.5, 0.5])] == ["a", "b", "c"]  # ties: by point id


def test_the_head_is_the_top_k_chunks_or_every_chunk_of_the_top_k_documents() -> None:
    hits = [hit("a", 0.9, "d1"), hit("b", 0.8, "d2"), hit("c", 0.7, "d1"), hit("d", 0.6, "d3")]
    assert [h["point_id"] for h in head(hits, 2, by_document=False)] == ["a", "b"]
    assert [h["point_id"] for h in head(hits, 2, by_document=True)] == ["a", "b", "c"]


def test_search_results_below_the_minimum_are_dropped_with_the_best_score_said() -> None:
    results: list[dict[str, Any]] = [{"score": 0.7}, {"score": 0.4}]
    assert above_minimum(results, 0.5, "en") == ([{"score": 0.7}], [])
    kept, notes = above_minimum([{"score": 0.3}, {"score": 0.2}], 0.5, "ja")
    assert kept == [] and notes == [NOTHING_RELEVANT["ja"].format(best=0.3, minimum=0.5)]


def test_calibration_returns_new_results_and_keeps_the_rankers_score(components: Components) -> None:
    results = [hit_to_result(1, hit("a", 0.9, "d1", "monstera watering")["payload"], 0.9, retriever_scores={})]
    before = copy.deepcopy(results)
    out = calibrated(components, "missing", ["monstera watering"], results)  # no index: every term weighs the same
    assert results == before
    assert out[0]["retriever_scores"]["ranker"] == 0.9 and 0 <= out[0]["score"] <= 1
    assert set(out[0]["retriever_scores"]) == {"ranker", "coverage", "relevance"}
    assert list(out[0]) == list(results[0])  # the same fields in the same order (JSON output)


def test_debug_details_name_the_retrievers_that_answered_and_why_reranking_was_skipped() -> None:
    state = RetrievalState(trace={"collection": "notes"}, retrievers=["dense", "bm25", "dense"])
    assert debug_details(state, NO_RERANKER) == {
        "collection": "notes",
        "retrievers": ["bm25", "dense"],
        "rerank": NO_RERANKER,
    }
    assert "rerank" not in debug_details(state, "")


def test_nothing_to_shape_leaves_no_results_and_no_notes_without_a_question(components: Components) -> None:
    state = RetrievalState(top_k=5, collection="missing", mode="search", question="")
    out = shape_results(components, state, Context(), [], timings={"fusion": 1.0})
    assert out == {"results": [], "total": 0, "notes": [], "timings_ms": {"fusion": 1.0}}
