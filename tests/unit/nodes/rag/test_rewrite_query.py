"""Query rewrite: what is searched on the first pass and on each retry, with and without a model,
and the standalone rewrite of a follow-up made before the cache is asked (``condense_question``)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from components.factory import Components
from components.text import messages
from graph.context import Context
from nodes.rag import rewrite_query
from tests.fakes.ollama_server import Behaviour
from tests.integration.helpers import with_llm_server
from tests.unit.nodes.helpers import MONSTERA, answering, run

NOT_RELEVANT = {"relevant": False, "score": 0.1, "reason": "", "path": "calibrated", "ranks": []}
FOLLOW_UP = [
    HumanMessage(MONSTERA),
    AIMessage("Water only when the top 5 cm of soil is dry [1]."),
    HumanMessage("And in winter?"),
]
REWRITE = {
    "question": "When should I water the monstera in winter?",
    "hypothetical_answer": "In winter, water the monstera every 2-3 weeks.",
    "translation": "冬のモンステラの水やりはいつ？",
}


def test_the_first_pass_searches_the_question_as_asked(notes: Components) -> None:
    out = run(rewrite_query.make(notes), {"question": MONSTERA})
    assert out["queries"] == [MONSTERA] and out["standalone_question"] == MONSTERA
    assert out["rewrites"] == 0 and out["trace"] == {"rewrite_path": "rules"}


def test_without_a_model_a_follow_up_is_also_searched_with_the_question_before_it(notes: Components) -> None:
    out = run(rewrite_query.make(notes), {"question": "And in winter?", "messages": FOLLOW_UP})
    assert out["queries"] == ["And in winter?", f"{MONSTERA} And in winter?"]


def test_a_retry_widens_the_keyword_query_with_terms_of_the_best_chunks(notes: Components) -> None:
    state = {"question": MONSTERA, "context_verdict": NOT_RELEVANT, "rewrites": 0}
    out = run(rewrite_query.make(notes), state)
    assert out["rewrites"] == 1 and out["context_verdict"] is None
    assert out["trace"]["rewrite_path"] == "prf" and out["trace"]["prf_terms"]
    [expanded] = out["queries"]
    assert expanded.startswith(MONSTERA) and len(expanded) > len(MONSTERA)
    assert out["dense_queries"] == [MONSTERA], "dense retrieval keeps the question"


def test_a_second_retry_drops_the_filters_read_from_the_question_and_says_so(notes: Components) -> None:
    state: dict[str, Any] = {
        "question": MONSTERA,
        "context_verdict": NOT_RELEVANT,
        "rewrites": 1,
        "search_filters": {"tags": ["plants"], "vaults": ["life"]},
        "analysis": {"filters_from_question": {"tags": ["plants"]}},
    }
    out = run(rewrite_query.make(notes), state)
    assert out["rewrites"] == 2 and out["search_filters"] == {"vaults": ["life"]}
    assert out["notes"] == [messages.RETRIED_WITHOUT_FILTERS.format(filters="tags")]


def test_the_model_writes_a_standalone_question_a_hypothetical_answer_and_a_translation(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    b.chat_handler = answering(Rewrite=REWRITE)
    state = {"question": "And in winter?", "messages": FOLLOW_UP}
    out = run(rewrite_query.make(with_llm_server(notes, url)), state, Context(hyde=True))
    assert out["standalone_question"] == REWRITE["question"]
    assert out["queries"] == [REWRITE["question"], REWRITE["translation"]]
    assert out["dense_queries"] == [REWRITE["hypothetical_answer"], REWRITE["translation"]]
    # the index holds Japanese notes too: the model was asked for a Japanese phrasing
    assert "in Japanese" in b.chat_requests[-1]["messages"][0]["content"]


def test_a_condensed_follow_up_is_searched_without_asking_the_model_again(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    c = with_llm_server(notes, url)
    b.chat_handler = answering(Rewrite=REWRITE)
    state: dict[str, Any] = {"question": "And in winter?", "messages": FOLLOW_UP}
    condensed = run(rewrite_query.make_condense(c), state, Context(hyde=True))
    assert condensed == {
        "condensed_question": REWRITE["question"],
        "dense_queries": [REWRITE["hypothetical_answer"]],
        "translated_question": REWRITE["translation"],
    }
    out = run(rewrite_query.make(c), {**state, **condensed}, Context(hyde=True))
    assert len(b.chat_requests) == 1
    assert out["queries"] == [REWRITE["question"], REWRITE["translation"]]


def test_without_a_model_or_a_thread_nothing_is_condensed(notes: Components, ollama: tuple[str, Behaviour]) -> None:
    url, b = ollama
    assert run(rewrite_query.make_condense(notes), {"question": "And in winter?", "messages": FOLLOW_UP}) == {}
    assert run(rewrite_query.make_condense(with_llm_server(notes, url)), {"question": MONSTERA}) == {}
    assert b.chat_requests == []
