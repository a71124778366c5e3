"""Query analysis: the filters a question states, the caller's filters and the user's profile, merged."""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.store.memory import InMemoryStore

from components.factory import Components
from graph.context import Context
from graph.profiles import write_profile
from nodes.rag import analyze_query
from tests.fakes.ollama_server import Behaviour
from tests.integration.helpers import with_llm_server
from tests.unit.nodes.helpers import answering, run

QUESTION = "What did I write about watering in #plants?"


def profile(filters: dict[str, Any], user: str = "alice") -> InMemoryStore:
    store = InMemoryStore()
    asyncio.run(write_profile(store, user, filters))
    return store


def test_a_tag_the_question_names_becomes_a_filter(notes: Components) -> None:
    out = run(analyze_query.make(notes), {"question": QUESTION})
    assert out["search_filters"] == {"tags": ["plants"]}
    assert out["analysis"]["path"] == "rules" and out["analysis"]["explanations"]
    assert out["analysis"]["filters_from_question"] == {"tags": ["plants"]}


def test_the_callers_filters_win_and_the_profile_fills_only_what_nobody_set(notes: Components) -> None:
    store = profile({"tags": ["料理"], "vaults": ["life"]})
    state = {"question": QUESTION, "filters": {"tags": ["houseplants"]}}
    out = run(analyze_query.make(notes), state, Context(user_id="alice"), store=store)
    assert out["search_filters"] == {"tags": ["houseplants"], "vaults": ["life"]}
    assert out["analysis"]["profile_filters"] == {"tags": ["料理"], "vaults": ["life"]}
    # another user's profile is not theirs
    other = run(analyze_query.make(notes), {"question": QUESTION}, Context(user_id="bob"), store=store)
    assert other["search_filters"] == {"tags": ["plants"]}


def test_a_broken_profile_does_not_break_the_question(notes: Components) -> None:
    store = profile({"created_from": "last spring"})
    out = run(
        analyze_query.make(notes), {"question": "Monstera?", "filters": {}}, Context(user_id="alice"), store=store
    )
    assert out["search_filters"] == {}


def test_a_search_is_searched_as_written(notes: Components) -> None:
    out = run(analyze_query.make(notes), {"question": QUESTION, "mode": "search"})
    assert out["search_filters"] == {} and out["analysis"]["filters_from_question"] == {}


def test_the_model_adds_only_filters_that_can_be_true_of_the_index(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    extracted = {"tags": ["#houseplants", "cacti"], "vaults": ["life", "work"], "created_from": "2024-05-01",
                 "created_to": "soon"}  # fmt: skip
    b.chat_handler = answering(ExtractedFilters=extracted)
    out = run(analyze_query.make(with_llm_server(notes, url)), {"question": QUESTION})
    # the rules' #plants wins over the model's tags; unknown tags and vaults and a non-date are dropped
    assert out["search_filters"] == {"tags": ["plants"], "vaults": ["life"], "created_from": "2024-05-01"}
    assert out["analysis"]["path"] == "llm"
    system = b.chat_requests[-1]["messages"][0]["content"]
    assert "Known vaults: life, research." in system
