"""Ranking the fused candidates: the cross-encoder's order when one is configured and the run wants it,
else the fused order (and debug output says why); then the top k with calibrated scores, search's
minimum score, passages holding instructions kept from Q&A, and an empty result that says why."""

from __future__ import annotations

from typing import Any

import pytest

from components.factory import Components
from components.models.reranker import Reranker
from components.text import messages
from components.text.messages import NOTHING_RELEVANT
from graph.context import Context
from nodes.rag import fuse_results, rerank_results
from nodes.rag.rerank_results import NO_RERANKER, rerank_failed
from tests.unit.nodes.helpers import (
    MONSTERA,
    chunks,
    handled,
    request,
    retrieved,
    run,
    sharing_store,
)


def fused(c: Components, question: str, **state: Any) -> dict[str, Any]:
    """The state when ranking starts: ``question`` searched by both retrievers and the hits fused."""
    asked = request(c, question, language="en", **state)
    found = retrieved(c, asked, Context())
    return {**found, **run(fuse_results.make(c), found, Context())}


def ids(hits: list[dict[str, Any]]) -> list[str]:
    return [h["chunk_id"] if "chunk_id" in h else h["payload"]["chunk_id"] for h in hits]


@pytest.fixture
def cross_encoder(notes: Components, monkeypatch: pytest.MonkeyPatch) -> tuple[Components, list[str]]:
    """The notes with a cross-encoder configured: a stand-in (no weights ship on PyPI) that scores
    the chunks about fertiliser 0.9 and the rest 0.1, and records the queries it was asked."""
    asked: list[str] = []

    def rerank(self: Reranker, query: str, texts: list[str]) -> list[float]:
        asked.append(query)
        return [0.9 if "fertiliser" in t else 0.1 for t in texts]

    monkeypatch.setattr(Reranker, "rerank", rerank)
    return sharing_store(notes, reranker_model="stand-in", breaker_fail_max=1), asked


def test_without_a_cross_encoder_the_fused_order_is_ranked_and_debug_says_why(notes: Components) -> None:
    state = fused(notes, MONSTERA, debug=True)
    out = run(rerank_results.make(notes), state, Context())
    results = out["results"]
    assert [r["rank"] for r in results] == [1, 2, 3, 4, 5] and out["total"] == 5
    assert ids(results) == ids(state["candidates"][:5])
    assert results[0]["title"] == "Monstera Care" and results[0]["section_hierarchy"][-1] == "Watering rule"
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
    assert {"dense", "bm25", "ranker", "coverage", "relevance"} <= set(results[0]["retriever_scores"])
    assert out["debug_info"]["rerank"] == NO_RERANKER and out["notes"] == []
    assert "rerank" not in out["timings_ms"]
    quiet = run(rerank_results.make(notes), state, Context(rerank=False))
    assert "rerank" not in quiet["debug_info"], "a run that turned reranking off is told nothing"


def test_a_cross_encoder_orders_the_results_by_its_scores(cross_encoder: tuple[Components, list[str]]) -> None:
    c, asked = cross_encoder
    state = fused(c, MONSTERA, debug=True)
    # min_score 0: the calibrated scores along the stand-in's order say nothing; every result is listed;
    # no freshness boost (the notes are dated): the cross-encoder's own scores and order
    out = run(rerank_results.make(c), state, Context(min_score=0.0, freshness_boost=0.0))
    first = out["results"][0]
    assert first["section_hierarchy"][-1] == "Feeding and repotting" and "fertiliser" in first["text"]
    assert first["retriever_scores"]["rerank"] == first["retriever_scores"]["ranker"] == 0.9
    assert [r["retriever_scores"]["rerank"] for r in out["results"][1:]] == [0.1] * 4
    assert asked == [MONSTERA] and "rerank" in out["timings_ms"] and "rerank" not in out["debug_info"]
    assert "rerank" not in state["candidates"][0]["scores"], "the fused candidates are left as they were"


def test_a_run_that_turns_reranking_off_keeps_the_fused_order(cross_encoder: tuple[Components, list[str]]) -> None:
    c, asked = cross_encoder
    state = fused(c, MONSTERA)
    out = run(rerank_results.make(c), state, Context(rerank=False))
    assert ids(out["results"]) == ids(state["candidates"][:5]) and asked == []


def test_a_failing_cross_encoder_leaves_the_fused_order_with_a_note(
    cross_encoder: tuple[Components, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    c, _ = cross_encoder

    def broken(self: Reranker, query: str, texts: list[str]) -> list[float]:
        raise RuntimeError("model file damaged")

    monkeypatch.setattr(Reranker, "rerank", broken)
    state = fused(c, MONSTERA)
    failed = handled(c, rerank_failed, rerank_results.make(c), state, Context())
    assert failed.goto == "rerank_skipped"
    assert failed.update == {
        "notes": ["Reranking skipped: the cross-encoder failed (an error; details in the log); the fused order stands."]
    }
    assert c.breakers.states()["reranker"] == "open", "the next runs skip it at once"
    skipped = run(rerank_results.make_skipped(c), state, Context())
    assert ids(skipped["results"]) == ids(state["candidates"][:5])


def test_search_drops_results_below_the_minimum_score_and_says_the_best(notes: Components) -> None:
    state = fused(notes, MONSTERA)
    best = run(rerank_results.make(notes), state, Context())["results"][0]["score"]
    out = run(rerank_results.make(notes), state, Context(min_score=1.0))
    assert out["results"] == [] and out["total"] == 0
    assert out["notes"] == [NOTHING_RELEVANT["en"].format(best=best, minimum=1.0)]
    qa = {**state, "mode": "qa"}
    assert len(run(rerank_results.make(notes), qa, Context(min_score=1.0))["results"]) == 5, (
        "Q&A grades its context instead"
    )


@pytest.mark.parametrize(
    ("filters", "why"),
    [
        ({"tags": ["plant"]}, "No results: no chunk matches the filter tag 'plant'; did you mean 'plants'?."),
        ({"vaults": ["life"], "language": "ja", "tags": ["plants"]}, "No results: each filter matches something"),
    ],
)
def test_an_empty_result_says_which_filter_left_nothing(notes: Components, filters: dict[str, Any], why: str) -> None:
    state = fused(notes, MONSTERA, search_filters=filters)
    out = run(rerank_results.make(notes), state, Context())
    assert state["candidates"] == [] and out["results"] == []
    assert len(out["notes"]) == 1 and out["notes"][0].startswith(why)


def test_qa_withholds_a_chunk_holding_instructions_that_search_lists(notes: Components) -> None:
    inbox = chunks(notes, "会議メモ")[0]
    state = fused(notes, "来週の会議はいつ？", mode="qa")
    assert inbox["chunk_id"] in ids(state["candidates"][:5])
    out = run(rerank_results.make(notes), state, Context())
    assert inbox["chunk_id"] not in ids(out["results"]) and len(out["results"]) == 5
    assert out["notes"] == [messages.PASSAGE_WITHHELD.format(label="会議メモ", score=inbox["injection"])]
    searched = {**state, "mode": "search"}
    out = run(rerank_results.make(notes), searched, Context(min_score=0.0))
    assert inbox["chunk_id"] in ids(out["results"])
