"""Settling a search once before retrieval: an empty query, a missing collection and an unknown
document are refused with what to do; the phrasings and filters are settled, and the run's top_k and
collection (guard_input's, tests/unit/nodes/rag/test_guard_input.py) are read, not changed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from components.factory import Components
from components.resilience.errors import CollectionNotFound, QueryError, UnknownDocument
from graph.context import Context
from nodes.rag import prepare_search
from tests.unit.nodes.helpers import MISO, MONSTERA, chunks, request, run


def prepare(c: Components, state: dict[str, Any], ctx: Context | None = None) -> dict[str, Any]:
    return run(prepare_search.make(c), state, ctx or Context())


def test_a_search_is_settled_with_its_language_filters_and_collection(notes: Components) -> None:
    state = request(notes, MISO, top_k=3)
    del state["queries"], state["mode"]  # the question alone, as Q&A asks it
    out = prepare(notes, state)
    meta = notes.index().metadata()
    assert out["queries"] == [MISO] and out["question"] == MISO
    assert out["language"] == "ja" and out["route"] == "vector_search" and out["search_filters"] == {}
    assert "top_k" not in out and "collection" not in out and out["notes"] == []
    assert out["trace"] == {
        "collection": state["collection"],
        "index_version": meta["version"],
        "vector_size": meta["dim"],
        "embedding_model": notes.embedder.model_id,
        "qdrant_filter": None,
    }


@pytest.mark.parametrize("question", ["", None, "   ", "\n\t "])
def test_an_empty_query_is_refused_with_what_to_give(notes: Components, question: str | None) -> None:
    with pytest.raises(QueryError, match=re.escape("The query is empty: give some words to search for")):
        prepare(notes, {**request(notes, MONSTERA, queries=[]), "question": question})


def test_a_missing_collection_is_refused_naming_the_command_that_fills_it(notes: Components) -> None:
    state = request(notes, MONSTERA, collection="absent")
    with pytest.raises(CollectionNotFound, match=r"Collection 'absent' does not exist .*Run `rag ingest PATH`"):
        prepare(notes, state)


def test_more_like_a_document_needs_no_words_but_a_document_the_index_holds(notes: Components) -> None:
    monstera = chunks(notes, "Monstera Care")[0]["doc_id"]
    out = prepare(notes, request(notes, "", queries=[], similar_to=monstera))
    assert out["queries"] == [] and out["language"] == "und" and out["notes"] == []
    with pytest.raises(UnknownDocument, match=re.escape("No document with id 'Monstera Care.md' in collection")):
        prepare(notes, request(notes, "", queries=[], similar_to="Monstera Care.md"))


def test_a_document_outside_the_callers_groups_is_as_unknown_as_a_missing_one(restricted: Components) -> None:
    salary = chunks(restricted, "Salary bands 2026")[0]["doc_id"]
    state = request(restricted, "", queries=[], similar_to=salary)
    with pytest.raises(UnknownDocument) as hidden:
        prepare(restricted, state)
    with pytest.raises(UnknownDocument) as missing:
        prepare(restricted, {**state, "similar_to": "Salary.md"})
    assert str(hidden.value) == str(missing.value).replace("Salary.md", salary), "the same words: nothing leaks"
    assert prepare(restricted, state, Context(access_groups=("hr",)))["notes"] == []


def test_filters_are_checked_and_the_filter_sent_to_qdrant_is_traced(notes: Components) -> None:
    out = prepare(notes, request(notes, MONSTERA, filters={"tags": ["#plants"], "vaults": ["life"]}))
    assert out["search_filters"] == {"vaults": ["life"], "tags": ["plants"]}
    assert out["trace"]["qdrant_filter"] == {
        "must": [{"key": "vault", "match": {"value": "life"}}, {"key": "tags", "match": {"value": "plants"}}]
    }
    with pytest.raises(QueryError, match=r"Invalid filters: colour: .*Allowed keys: vaults, tags"):
        prepare(notes, request(notes, MONSTERA, search_filters={"colour": "green"}))


def test_a_phrasing_given_twice_is_searched_once(notes: Components) -> None:
    queries = [MONSTERA, f" {MONSTERA} ", "monstera watering", "monstera watering", " "]
    out = prepare(notes, request(notes, MONSTERA, queries=queries))
    assert out["queries"] == [MONSTERA, "monstera watering"]


def test_qa_searches_the_rewritten_phrasings_and_not_the_raw_question_again(notes: Components) -> None:
    rewritten = ["monstera watering schedule", "モンステラ 水やり"]
    hyde = ["Water it when the top 5 cm of soil are dry.", "土の表面が乾いたら水をやる。"]
    out = prepare(notes, request(notes, MONSTERA, mode="qa", queries=rewritten, dense_queries=hyde))
    assert out["question"] == MONSTERA and out["queries"] == rewritten
    assert out["dense_queries"] == hyde, "one hypothetical answer per phrasing drives dense retrieval"
    out = prepare(notes, request(notes, MONSTERA, mode="qa", queries=rewritten, dense_queries=hyde[:1]))
    assert out["dense_queries"] == [], "without one per phrasing, the phrasings themselves are embedded"
    assert prepare(notes, request(notes, MONSTERA, mode="qa", queries=[]))["queries"] == [MONSTERA]
