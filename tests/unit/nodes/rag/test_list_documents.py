"""Metadata route: a question that only states conditions gets the documents that meet them, listed
with their metadata in the question's language, within the caller's access groups."""

from __future__ import annotations

from components.factory import Components
from graph.context import Context
from nodes.rag import list_documents
from tests.fakes.ollama_server import Behaviour
from tests.integration.helpers import with_llm_server
from tests.unit.nodes.helpers import answering, run


def test_the_notes_meeting_the_conditions_are_listed_with_date_place_and_tags(notes: Components) -> None:
    state = {"question": "#料理 のメモは？", "language": "ja", "search_filters": {"tags": ["料理"]}}
    out = run(list_documents.make(notes), state)
    lines = out["answer"].splitlines()
    assert lines[0] == "条件（タグ #料理）に合う文書は 1 件です。"
    assert lines[1] == "1. 味噌汁 · 2024-02-11 · life/recipes/味噌汁.md · #料理 #和食 #汁物 [1]"
    assert [(s["n"], s["title"]) for s in out["sources"]] == [(1, "味噌汁")]
    assert out["path"] == "metadata" and out["confidence"] == 1.0
    assert [p["text"] for p in out["passages"]] == [lines[1]]


def test_a_period_lists_oldest_first_and_says_so(notes: Components) -> None:
    state = {
        "question": "Which notes did I write in 2024?",
        "language": "en",
        "search_filters": {"created_from": "2024-01-01", "created_to": "2024-12-31"},
    }
    out = run(list_documents.make(notes), state)
    assert out["answer"].splitlines()[0] == "3 documents match created 2024-01-01 to 2024-12-31 (oldest first)."
    assert [s["title"] for s in out["sources"]] == ["味噌汁", "Monstera Care", "Reciprocal Rank Fusion"]
    state["question"] = "My most recent notes from 2024?"
    out = run(list_documents.make(notes), state)
    assert [s["title"] for s in out["sources"]] == ["Reciprocal Rank Fusion", "Monstera Care", "味噌汁"]


def test_no_match_says_which_conditions_found_nothing(notes: Components) -> None:
    state = {"question": "Notes tagged #travel?", "language": "en", "search_filters": {"tags": ["travel"]}}
    out = run(list_documents.make(notes), state)
    assert out["answer"] == "No document matches tags #travel. Try fewer conditions or a wider period."
    assert out["sources"] == [] and out["passages"] == []


def test_a_listing_never_shows_a_document_outside_the_callers_groups(restricted: Components) -> None:
    state = {"question": "notes from 2026", "language": "en", "search_filters": {}}
    public = run(list_documents.make(restricted), state)
    assert [s["title"] for s in public["sources"]] == ["Company holidays 2026"]
    assert "Salary" not in public["answer"] and "hr" not in public["answer"]
    hr = run(list_documents.make(restricted), state, Context(access_groups=("hr",)))
    assert sorted(s["title"] for s in hr["sources"]) == ["Company holidays 2026", "Salary bands 2026"]


def test_with_a_model_one_cited_paragraph_on_the_listed_documents_follows_the_list(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    b.chat_handler = answering("味噌汁のレシピで、合わせだしの取り方が書かれている[1]。")
    state = {"question": "#料理 のメモは？", "language": "ja", "search_filters": {"tags": ["料理"]}}
    out = run(list_documents.make(with_llm_server(notes, url)), state)
    listing, summary = out["answer"].split("\n\n")
    assert listing.splitlines()[1].startswith("1. 味噌汁 · 2024-02-11") and summary.endswith("[1]。")
    assert out["path"] == "llm" and [s["title"] for s in out["sources"]] == ["味噌汁"]
    sent = b.chat_requests[-1]["messages"]
    assert sent[0]["role"] == "system" and "だし" not in sent[0]["content"]  # the documents are not in it
    assert sent[-1]["role"] == "user" and '<passage id="1">' in sent[-1]["content"] and "だし" in sent[-1]["content"]
