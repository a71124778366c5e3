"""Router: the index, the web or a direct answer, and why; web search while it is off becomes the index."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from components.factory import Components
from components.text import messages
from graph.context import Context
from nodes.rag import route_question
from tests.fakes.ollama_server import Behaviour
from tests.integration.helpers import with_llm_server
from tests.unit.nodes.helpers import MISO, MONSTERA, answering, run


def test_without_a_model_questions_about_notes_search_the_index_and_greetings_are_answered_directly(
    notes: Components,
) -> None:
    asked = ((MONSTERA, "vector_search"), (MISO, "vector_search"), ("Hello, how are you?", "direct_answer"))
    for question, route in asked:
        out = run(route_question.make(notes), {"question": question})
        assert out["route"] == route, question
        assert out["route_reason"].startswith("embedding: ") and out["notes"] == []


def test_a_question_about_the_users_own_life_searches_the_notes_even_when_it_reads_like_small_talk(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    out = run(route_question.make(notes), {"question": "How far did I run?"})
    assert out["route"] == "vector_search" and "about the user's own" in out["route_reason"]
    assert run(route_question.make(notes), {"question": "私はいつ走った？"})["route"] == "vector_search"
    url, b = ollama
    b.chat_handler = answering(RouteDecision={"route": "direct_answer", "reason": "small talk"})
    out = run(route_question.make(with_llm_server(notes, url)), {"question": "How far did I run?"})
    assert out["route"] == "vector_search" and out["route_reason"].startswith("llm: about the user's own")


def test_a_short_follow_up_goes_where_the_question_before_it_went(notes: Components) -> None:
    thread = [HumanMessage(MONSTERA), AIMessage("Water it when the soil is dry [1]."), HumanMessage("And in winter?")]
    out = run(route_question.make(notes), {"question": "And in winter?", "messages": thread})
    assert out["route"] == "vector_search"


def test_web_search_while_it_is_off_searches_the_index_with_a_warning(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    b.chat_handler = answering(RouteDecision={"route": "web_search", "reason": "today's weather"})
    out = run(route_question.make(with_llm_server(notes, url)), {"question": "Will it rain in Tokyo today?"})
    assert out["route"] == "vector_search"
    assert out["route_reason"] == "llm: web search is off (today's weather)"
    assert out["notes"] == [messages.WEB_SEARCH_OFF]
    assert out["trace"] == {"web_available": False}


def test_a_question_that_only_states_conditions_lists_documents_whichever_router_spoke(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    b.chat_handler = answering(RouteDecision={"route": "direct_answer", "reason": "no question"})
    state = {"question": "#plants notes from 2024", "analysis": {"structured": True}, "search_filters": {}}
    out = run(route_question.make(with_llm_server(notes, url)), state, Context())
    assert out["route"] == "metadata_search" and "only states conditions" in out["route_reason"]
    out = run(route_question.make(notes), state, Context())
    assert out["route"] == "metadata_search" and out["route_reason"].startswith("embedding: the question only")


def test_the_llm_routes_to_a_listing_only_when_there_are_conditions_to_list_by(
    notes: Components, ollama: tuple[str, Behaviour]
) -> None:
    url, b = ollama
    b.chat_handler = answering(RouteDecision={"route": "metadata_search", "reason": "a listing"})
    c = with_llm_server(notes, url)
    out = run(route_question.make(c), {"question": "Which of my notes are about plants?"}, Context())
    assert out["route"] == "vector_search" and "no conditions" in out["route_reason"]
    state = {"question": "Which #plants notes do I have?", "search_filters": {"tags": ["plants"]}}
    assert run(route_question.make(c), state, Context())["route"] == "metadata_search"
