"""BM25 retrieval: per phrasing, the chunks holding its words, as many as the run asks for, filtered
as dense retrieval is and never outside the caller's access groups; an unreadable index or a search
past BM25_TIMEOUT leaves dense results to go on alone, with a note."""

from __future__ import annotations

import pytest

from components.factory import Components
from graph.context import Context
from nodes.rag import retrieve_bm25
from nodes.rag.retrieve_bm25 import bm25_failed
from tests.unit.nodes.helpers import (
    MISO,
    MONSTERA,
    chunks,
    handled,
    located,
    request,
    run,
    sharing_store,
)

#: words of every note but the inbox, English and Japanese: the limit decides how many chunks are found
COMMON = "monstera water rank fusion 味噌 だし"


def test_each_phrasing_gets_the_chunks_holding_its_words(notes: Components) -> None:
    state = request(notes, MONSTERA, queries=[MONSTERA, MISO])
    out = run(retrieve_bm25.make(notes), state, Context())
    monstera, miso = out["bm25_hits"]
    assert located(notes, monstera)[0] == ("Monstera Care", "Watering rule")
    assert {title for title, _ in located(notes, miso)} == {"味噌汁"}
    assert out["retrievers"] == ["bm25"] and "bm25" in out["timings_ms"]


@pytest.mark.parametrize(("candidates", "top_k", "found"), [(4, 2, 4), (2, 6, 6)])
def test_each_phrasing_gets_the_larger_of_candidates_and_top_k(
    notes: Components, candidates: int, top_k: int, found: int
) -> None:
    state = request(notes, COMMON, top_k=top_k)
    out = run(retrieve_bm25.make(notes), state, Context(candidates=candidates))
    assert [len(hits) for hits in out["bm25_hits"]] == [found]


def test_the_runs_filters_are_applied_in_the_store(notes: Components) -> None:
    state = request(notes, COMMON, search_filters={"language": "en"})
    [hits] = run(retrieve_bm25.make(notes), state, Context())["bm25_hits"]
    assert hits and {title for title, _ in located(notes, hits)} == {"Monstera Care", "Reciprocal Rank Fusion"}


def test_a_restricted_chunk_is_found_only_for_its_group(restricted: Components) -> None:
    state = request(restricted, "salary bands 2026")
    public = run(retrieve_bm25.make(restricted), state, Context())["bm25_hits"][0]
    shared = run(retrieve_bm25.make(restricted), state, Context(access_groups=("hr",)))["bm25_hits"][0]
    assert [title for title, _ in located(restricted, public)] == ["Company holidays 2026"]
    assert located(restricted, shared)[0][0] == "Salary bands 2026"


def test_more_like_this_and_a_run_with_dense_alone_search_no_words(notes: Components) -> None:
    monstera = chunks(notes, "Monstera Care")[0]["doc_id"]
    state = request(notes, MONSTERA)
    node = retrieve_bm25.make(notes)
    assert run(node, {**state, "similar_to": monstera}, Context()) == {"bm25_hits": []}
    assert run(node, state, Context(retrievers=("dense",))) == {"bm25_hits": []}


@pytest.mark.parametrize(
    ("settings", "collection", "why"),
    [({"bm25_timeout": 1e-6}, None, "timed out"), ({}, "gone", "an error; details in the log")],
    ids=["past-the-timeout", "index-unreadable"],
)
def test_a_failed_search_goes_on_with_dense_alone_and_pauses_nothing(
    notes: Components, settings: dict[str, float], collection: str | None, why: str
) -> None:
    c = sharing_store(notes, breaker_fail_max=1, **settings)
    state = request(notes, MONSTERA, collection=collection or notes.index().collection)
    failed = handled(c, bm25_failed, retrieve_bm25.make(c), state, Context())
    assert failed.goto == "fuse_results"
    assert failed.update == {
        "bm25_hits": [],
        "notes": [f"BM25 retrieval failed ({why}); results come from dense retrieval only."],
    }
    assert c.breakers.states() == {}, "BM25 calls no service: no breaker opens"
