"""Dense retrieval: per phrasing, the chunks nearest in meaning, as many as the run asks for, never one
outside the caller's access groups; "more like this" searches by a document's own vectors; a failed
or paused vector store leaves BM25 to go on alone, with a note."""

from __future__ import annotations

import pytest

from components.factory import Components
from components.resilience.errors import QueryError
from graph.context import Context
from nodes.rag import retrieve_dense
from nodes.rag.retrieve_dense import dense_failed
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

FAILED = "Dense retrieval was unavailable ({why}); results come from BM25 only."


def test_each_phrasing_gets_the_chunks_nearest_in_meaning(notes: Components) -> None:
    state = request(notes, MONSTERA, queries=[MONSTERA, MISO])
    out = run(retrieve_dense.make(notes), state, Context())
    monstera, miso = out["dense_hits"]
    assert located(notes, monstera)[0] == ("Monstera Care", "Watering rule")
    assert located(notes, miso)[0][0] == "味噌汁"
    assert out["retrievers"] == ["dense"] and {"query_embedding", "dense"} <= set(out["timings_ms"])


@pytest.mark.parametrize(("candidates", "top_k", "found"), [(4, 2, 4), (2, 6, 6)])
def test_each_phrasing_gets_the_larger_of_candidates_and_top_k(
    notes: Components, candidates: int, top_k: int, found: int
) -> None:
    state = request(notes, MONSTERA, top_k=top_k)
    out = run(retrieve_dense.make(notes), state, Context(candidates=candidates))
    assert [len(hits) for hits in out["dense_hits"]] == [found]


def test_the_runs_filters_are_applied_in_the_store(notes: Components) -> None:
    state = request(notes, MONSTERA, search_filters={"vaults": ["research"]})
    [hits] = run(retrieve_dense.make(notes), state, Context())["dense_hits"]
    assert hits and {title for title, _ in located(notes, hits)} == {"Reciprocal Rank Fusion", "会議メモ"}


def test_a_restricted_chunk_is_found_only_for_its_group(restricted: Components) -> None:
    state = request(restricted, "engineers' salary bands 2026")
    public = run(retrieve_dense.make(restricted), state, Context())["dense_hits"][0]
    shared = run(retrieve_dense.make(restricted), state, Context(access_groups=("hr",)))["dense_hits"][0]
    assert [title for title, _ in located(restricted, public)] == ["Company holidays 2026"]
    assert located(restricted, shared)[0][0] == "Salary bands 2026"


def test_a_run_with_bm25_alone_searches_no_vectors(notes: Components) -> None:
    state = request(notes, MONSTERA)
    out = run(retrieve_dense.make(notes), state, Context(retrievers=("bm25",)))
    assert out == {"dense_hits": []}, "no retriever answered here: fusion goes by BM25 alone"


def test_more_like_a_document_finds_the_chunks_of_other_documents(notes: Components) -> None:
    monstera = chunks(notes, "Monstera Care")[0]["doc_id"]
    state = request(notes, "", queries=[], similar_to=monstera)
    # "more like this" is a vector question: it is searched even where the run's retrievers leave dense out
    out = run(retrieve_dense.make(notes), state, Context(retrievers=("bm25",)))
    [hits] = out["dense_hits"]
    others = len(list(notes.index().scroll())) - len(chunks(notes, "Monstera Care"))
    assert len(hits) == others and "Monstera Care" not in {title for title, _ in located(notes, hits)}
    assert out["retrievers"] == ["dense"]


def test_more_like_an_unknown_document_fails_the_run_and_pauses_no_store(notes: Components) -> None:
    c = sharing_store(notes, breaker_fail_max=1)
    state = request(notes, "", queries=[], similar_to="Monstera Care.md")
    with pytest.raises(QueryError, match=r"Document 'Monstera Care.md' is not in the index; `rag search` shows"):
        handled(c, dense_failed, retrieve_dense.make(c), state, Context())
    assert c.breakers.states() == {"vector_store": "closed"}, "the caller's mistake is not the store's failure"


def test_a_failed_search_goes_on_with_bm25_alone_and_the_store_is_paused(notes: Components) -> None:
    c = sharing_store(notes, breaker_fail_max=1)
    node = retrieve_dense.make(c)
    gone = request(notes, MONSTERA, collection="gone")  # the collection went away after prepare_search
    failed = handled(c, dense_failed, node, gone, Context())
    assert failed.goto == "fuse_results"
    assert failed.update == {"dense_hits": [], "notes": [FAILED.format(why="an error; details in the log")]}
    state = request(notes, MONSTERA)
    paused = handled(c, dense_failed, node, state, Context())
    assert paused.update == {"dense_hits": [], "notes": [FAILED.format(why="paused after repeated failures")]}
