"""End of every run: the warnings, the answer appended to the thread as an AIMessage, the cache."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage

from components.factory import Components
from nodes.rag import check_cache, finish_run
from tests.unit.nodes.helpers import MONSTERA, answered, run


@pytest.fixture(autouse=True)
def nothing_answered_yet(notes: Components) -> None:
    notes.cache.clear()


def cached(notes: Components) -> bool:
    return bool(run(check_cache.make(notes), {"question": MONSTERA, "language": "en"})["cache_hit"])


def test_the_answer_joins_the_thread_with_its_sources_and_the_notes_become_warnings(notes: Components) -> None:
    twice = ["Dense retrieval was unavailable (timed out).", "Dense retrieval was unavailable (timed out)."]
    state = answered(notes=twice)
    out = run(finish_run.make(notes), {**state, "top_k": 3, "filters": {"tags": ["plants"]}})
    assert out["warnings"] == ["Dense retrieval was unavailable (timed out)."]
    [message] = out["messages"]
    assert isinstance(message, AIMessage) and message.content == state["answer"]
    meta = message.response_metadata
    assert meta["sources"] == state["sources"] and meta["route"] == "vector_search" and meta["path"] == "extractive"
    assert meta["confidence"] == 0.8 and meta["request_id"] == "req-answered"
    # the caller's per-run inputs are cleared for the thread's next run
    assert out["top_k"] is None and out["filters"] == {} and out["question"] == ""
    assert "debug_info" not in out


def test_a_grounded_useful_answer_is_kept_for_the_next_asker(notes: Components) -> None:
    run(finish_run.make(notes), answered())
    assert cached(notes)


@pytest.mark.parametrize(
    "change",
    [
        {"escalation": {"reason": "no relevant context after 3 rewrite(s)", "node": "fallback_answer"}, "path": "none"},
        {"answer_verdict": {"useful": False, "score": 0.1, "reason": "", "path": "similarity"}},
        {"route": "direct_answer"},
        {"cache_hit": True},
    ],
    ids=["fallback", "not-useful", "direct-answer", "from-the-cache"],
)
def test_fallbacks_unhelpful_and_uncited_answers_are_not_kept(notes: Components, change: dict[str, Any]) -> None:
    run(finish_run.make(notes), answered(**change))
    assert not cached(notes)


def test_a_search_adds_no_message_and_debug_shows_the_verdicts(notes: Components) -> None:
    state = answered(mode="search", debug=True, steps=[{"node": "prepare_search"}], rewrites=1)
    out = run(finish_run.make(notes), state)
    assert "messages" not in out
    assert out["debug_info"]["answer_verdict"] == state["answer_verdict"]
    assert out["debug_info"]["steps"] == [{"node": "prepare_search"}] and out["debug_info"]["rewrites"] == 1
    assert not cached(notes)
