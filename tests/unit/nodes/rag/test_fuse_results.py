"""Fusion: the dense and BM25 lists joined by the run's method into candidates with their full text,
scored 0..1 and bounded by rerank_candidates (documents, when grouped); with one retriever down the
other's list stands, and with both down the run fails with what to check."""

from __future__ import annotations

import pytest

from components.factory import Components
from components.resilience.errors import ServiceUnavailable
from components.retrieval import fusion
from graph.context import Context
from nodes.rag import fuse_results, retrieve_bm25
from tests.unit.nodes.helpers import MONSTERA, chunks, located, request, retrieved, run


@pytest.mark.parametrize("method", list(fusion.METHODS))
def test_the_runs_method_joins_both_lists_into_scored_candidates_with_their_text(
    notes: Components, method: str
) -> None:
    asked = request(notes, MONSTERA)
    ctx = Context(fusion=method)
    state = retrieved(notes, asked, ctx)
    candidates = run(fuse_results.make(notes), state, ctx)["candidates"]
    listed = {h["point_id"] for hits in [*state["dense_hits"], *state["bm25_hits"]] for h in hits}
    assert {h["point_id"] for h in candidates} == listed, "every chunk either list holds (fewer than 30)"
    first = candidates[0]
    assert first["ranks"] == {"dense": 1, "bm25": 1} and first["score"] == 1.0, "first in both lists: the top score"
    assert (first["payload"]["title"], first["payload"]["section"]) == ("Monstera Care", "Watering rule")
    assert first["payload"]["text"].startswith("**Water only when"), "the kept chunks have their text"
    scores = [h["score"] for h in candidates]
    assert scores == sorted(scores, reverse=True) and all(0 <= s < 1 for s in scores[1:])
    both = [h for h in candidates if len(h["ranks"]) == 2]
    assert len(both) == len(state["bm25_hits"][0]), "BM25's chunks, all of which dense found too"
    if method == "rrf":  # Σ 1/(k + rank) over the two lists, scaled by the top's 2/(k + 1)
        assert all(h["fused_score"] == pytest.approx(sum(1 / (60 + r) for r in h["ranks"].values())) for h in both)
    else:  # the weighted mean of min-max-scaled scores is on the 0..1 scale already
        assert all(h["fused_score"] == h["score"] for h in candidates)


def test_a_retriever_weighted_zero_does_not_move_the_order(notes: Components) -> None:
    state = request(notes, MONSTERA)
    ctx = Context(fusion="rrf", bm25_weight=0.0)
    fused = retrieved(notes, state, ctx)
    candidates = run(fuse_results.make(notes), fused, ctx)["candidates"]
    assert [h["point_id"] for h in candidates] == [h["point_id"] for h in fused["dense_hits"][0]][: len(candidates)]


@pytest.mark.parametrize(("rerank_candidates", "top_k", "kept"), [(4, 2, 4), (2, 6, 6)])
def test_the_larger_of_rerank_candidates_and_top_k_is_kept(
    notes: Components, rerank_candidates: int, top_k: int, kept: int
) -> None:
    state = request(notes, MONSTERA, top_k=top_k)
    ctx = Context(rerank_candidates=rerank_candidates)
    assert len(run(fuse_results.make(notes), retrieved(notes, state, ctx), ctx)["candidates"]) == kept


def test_grouped_every_chunk_of_the_first_documents_is_kept(notes: Components) -> None:
    state = request(notes, MONSTERA, top_k=1, group_by_document=True)
    ctx = Context(rerank_candidates=1)
    candidates = run(fuse_results.make(notes), retrieved(notes, state, ctx), ctx)["candidates"]
    assert len(candidates) == len(chunks(notes, "Monstera Care"))
    assert {h["payload"]["title"] for h in candidates} == {"Monstera Care"}
    ungrouped = run(fuse_results.make(notes), {**retrieved(notes, state, ctx), "group_by_document": False}, ctx)
    assert len(ungrouped["candidates"]) == 1


def test_with_dense_down_bm25s_list_stands_on_the_full_scale(notes: Components) -> None:
    state = request(notes, MONSTERA)
    ctx = Context()
    bm25 = run(retrieve_bm25.make(notes), state, ctx)
    out = run(fuse_results.make(notes), {**state, "dense_hits": [], **bm25}, ctx)
    [listed] = bm25["bm25_hits"]
    assert [h["point_id"] for h in out["candidates"]] == [h["point_id"] for h in listed]
    assert out["candidates"][0]["score"] == 1.0 and located(notes, listed)[0] == ("Monstera Care", "Watering rule")


def test_with_both_retrievers_down_the_run_fails_with_what_to_check(notes: Components) -> None:
    state = {**request(notes, MONSTERA), "dense_hits": [], "bm25_hits": [], "retrievers": []}
    with pytest.raises(ServiceUnavailable, match=r"Neither the vector store nor BM25 answered; check `rag status`"):
        run(fuse_results.make(notes), state, Context())
