"""Routers of the query graph: the bounded self-correction loops and the other branch decisions.

A grading node counts each failure in state (``context_failures``, ``hallucination_failures``,
``answer_failures``) before its router reads it; the caps come from the run's Context. So with the
default caps a question gets at most 3 context rewrites, 2 regenerations and 3 answer rewrites,
then the fallback answer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime

from graph import routes
from graph.context import Context
from graph.state import AnswerVerdict, ContextVerdict, GuardrailVerdict, HallucinationVerdict, RAGState, run_reset

Router = Callable[[RAGState, Runtime[Context]], str]


def irrelevant() -> ContextVerdict:
    return ContextVerdict(relevant=False, score=0.1, reason="no chunk covers the question", path="calibrated", ranks=[])


def relevant() -> ContextVerdict:
    return ContextVerdict(relevant=True, score=0.9, reason="chunk 1", path="calibrated", ranks=[1])


def ungrounded() -> HallucinationVerdict:
    return HallucinationVerdict(grounded=False, score=0.5, unsupported=["Invented."], path="sentence_support")


def grounded() -> HallucinationVerdict:
    return HallucinationVerdict(grounded=True, score=1.0, unsupported=[], path="sentence_support")


def not_useful() -> AnswerVerdict:
    return AnswerVerdict(useful=False, score=0.2, reason="similarity 0.74", path="similarity")


def useful() -> AnswerVerdict:
    return AnswerVerdict(useful=True, score=0.8, reason="similarity 0.86", path="similarity")


# each loop: its router, the verdict its node writes on failure, the counter it bumps, where a retry goes
LOOPS: dict[str, tuple[Router, str, Callable[[], Any], str, str]] = {
    "context": (routes.after_context_grade, "context_verdict", irrelevant, "context_failures", "rewrite_query"),
    "hallucination": (
        routes.after_hallucination_check,
        "hallucination",
        ungrounded,
        "hallucination_failures",
        "generate_answer",
    ),
    "answer": (routes.after_answer_grade, "answer_verdict", not_useful, "answer_failures", "rewrite_query"),
}
CAPS = {"context": "max_context_rewrites", "hallucination": "max_regenerations", "answer": "max_answer_rewrites"}


def capped(name: str, cap: int) -> Context:
    """A Context with one loop cap set (``name`` a Context field)."""
    kwargs: dict[str, Any] = {name: cap}
    return Context(**kwargs)


def run_loop(loop: str, ctx: Context, state: RAGState | None = None) -> list[str]:
    """Fail the loop's grader again and again, counting each failure as its node does, and collect
    where the router sends the run each time until it leaves the loop."""
    router, verdict_key, failing, counter, _ = LOOPS[loop]
    current: dict[str, Any] = dict(state or {})
    runtime = Runtime(context=ctx)
    went: list[str] = []
    while len(went) < 20:
        current = {**current, verdict_key: failing(), counter: int(current.get(counter) or 0) + 1}
        went.append(router(cast(RAGState, current), runtime))
        if went[-1] != LOOPS[loop][4]:
            break
    return went


# ------------------------------------------------------------------ the default caps


def test_irrelevant_context_is_rewritten_three_times_then_the_fallback_answers() -> None:
    assert run_loop("context", Context()) == ["rewrite_query"] * 3 + ["fallback_answer"]


def test_an_ungrounded_answer_is_regenerated_twice_then_the_fallback_answers() -> None:
    assert run_loop("hallucination", Context()) == ["generate_answer"] * 2 + ["fallback_answer"]


def test_an_unhelpful_answer_is_rewritten_three_times_then_the_fallback_answers() -> None:
    assert run_loop("answer", Context()) == ["rewrite_query"] * 3 + ["fallback_answer"]


@pytest.mark.parametrize("runtime", [None, Runtime(context=None)], ids=["no-runtime", "no-context"])
def test_without_a_context_the_default_caps_apply(runtime: Runtime[Context] | None) -> None:
    def at(failures: int, loop: str) -> str:
        router, verdict_key, failing, counter, _ = LOOPS[loop]
        state = cast(RAGState, {verdict_key: failing(), counter: failures})
        return router(state, runtime)  # type: ignore[arg-type]  # routers accept None as no runtime

    assert [at(n, "context") for n in (3, 4)] == ["rewrite_query", "fallback_answer"]
    assert [at(n, "hallucination") for n in (2, 3)] == ["generate_answer", "fallback_answer"]
    assert [at(n, "answer") for n in (3, 4)] == ["rewrite_query", "fallback_answer"]


# ------------------------------------------------------------------ caps set per run


@pytest.mark.parametrize("loop", list(LOOPS))
@pytest.mark.parametrize("cap", [0, 1, 5, 10])
def test_the_runs_cap_is_the_number_of_retries(loop: str, cap: int) -> None:
    retry = LOOPS[loop][4]
    went = run_loop(loop, capped(CAPS[loop], cap))
    assert went == [retry] * cap + ["fallback_answer"]


@pytest.mark.parametrize("loop", list(LOOPS))
def test_cap_zero_goes_straight_to_the_fallback(loop: str) -> None:
    assert run_loop(loop, capped(CAPS[loop], 0)) == ["fallback_answer"]


def test_each_loop_reads_its_own_cap() -> None:
    ctx = Context(max_context_rewrites=1, max_regenerations=4, max_answer_rewrites=0)
    assert len(run_loop("context", ctx)) - 1 == 1
    assert len(run_loop("hallucination", ctx)) - 1 == 4
    assert len(run_loop("answer", ctx)) - 1 == 0


def test_each_loop_counts_only_its_own_failures() -> None:
    # two answer rewrites and a regeneration already spent do not shorten the context loop
    spent = RAGState(answer_failures=2, hallucination_failures=1)
    assert run_loop("context", Context(), spent) == ["rewrite_query"] * 3 + ["fallback_answer"]


def test_a_new_run_in_the_thread_gets_the_whole_budget_again() -> None:
    exhausted = RAGState(context_failures=4, hallucination_failures=3, answer_failures=4)
    fresh = cast(RAGState, {**exhausted, **run_reset()})
    assert run_loop("context", Context(), fresh) == ["rewrite_query"] * 3 + ["fallback_answer"]
    assert run_loop("hallucination", Context(), fresh) == ["generate_answer"] * 2 + ["fallback_answer"]


@pytest.mark.parametrize("name", list(CAPS.values()))
@pytest.mark.parametrize("value", [-1, 11])
def test_caps_outside_zero_to_ten_are_refused(name: str, value: int) -> None:
    with pytest.raises(ValueError, match=f"{name} must be between 0 and 10, not {value}"):
        capped(name, value)


# ------------------------------------------------------------------ passing verdicts leave the loop


def test_a_passing_verdict_moves_on_whatever_the_count() -> None:
    rt = Runtime(context=Context(max_context_rewrites=0, max_regenerations=0, max_answer_rewrites=0))
    assert routes.after_context_grade(RAGState(context_verdict=relevant(), context_failures=9), rt) == "fetch_parents"
    state = RAGState(hallucination=grounded(), hallucination_failures=9)
    assert routes.after_hallucination_check(state, rt) == "grade_answer"
    assert routes.after_answer_grade(RAGState(answer_verdict=useful(), answer_failures=9), rt) == "guard_output"


def test_a_grader_that_has_not_judged_does_not_block_the_answer() -> None:
    rt = Runtime(context=Context())
    assert routes.after_hallucination_check(RAGState(hallucination=None), rt) == "grade_answer"
    assert routes.after_answer_grade(RAGState(answer_verdict=None), rt) == "guard_output"


# ------------------------------------------------------------------ corrective web search


def test_with_web_search_on_and_available_irrelevant_context_goes_to_the_web_not_a_rewrite() -> None:
    state = RAGState(context_verdict=irrelevant(), context_failures=1, trace={"web_available": True})
    assert routes.after_context_grade(state, Runtime(context=Context(web_search=True))) == "search_web"
    # either missing: the rewrite loop as usual
    assert routes.after_context_grade(state, Runtime(context=Context(web_search=False))) == "rewrite_query"
    no_provider = RAGState(context_verdict=irrelevant(), context_failures=1, trace={"web_available": False})
    assert routes.after_context_grade(no_provider, Runtime(context=Context(web_search=True))) == "rewrite_query"


@pytest.mark.parametrize("route", ["web_search", "given_documents"])
def test_an_unhelpful_answer_from_pages_or_given_documents_is_not_rewritten(route: str) -> None:
    state = RAGState(answer_verdict=not_useful(), answer_failures=1, route=route)
    assert routes.after_answer_grade(state, Runtime(context=Context())) == "fallback_answer"


def test_web_results_are_answered_from_and_no_results_fall_back() -> None:
    assert routes.after_reading(RAGState(passages=[{"n": 1, "text": "page"}])) == "generate_answer"
    assert routes.after_reading(RAGState(passages=[])) == "fallback_answer"


# ------------------------------------------------------------------ the other branches


def guard(pii: list[str]) -> GuardrailVerdict:
    return GuardrailVerdict(allowed=True, category=None, reason="", pii=pii)


THREAD = [HumanMessage("What is RRF?"), AIMessage("Rank fusion [1]."), HumanMessage("And k?")]


@pytest.mark.parametrize(
    ("state", "ctx", "cached", "after_analysis"),
    [
        (RAGState(question="味噌はいつ入れる？"), Context(), True, "check_cache"),
        (RAGState(question="味噌はいつ入れる？"), Context(cache=False), False, "route_question"),
        (
            RAGState(question="Mail taro@example.com", guardrail=guard(["EMAIL_ADDRESS"])),
            Context(),
            False,
            "route_question",
        ),
        (RAGState(question="When?", guardrail=guard([])), Context(), True, "check_cache"),
        (RAGState(question=""), Context(), False, "route_question"),
        # a follow-up's own words depend on the conversation: the cache waits for its standalone rewrite
        (RAGState(question="And k?", messages=THREAD), Context(), False, "condense_question"),
        (RAGState(question="And k?", messages=THREAD), Context(cache=False), False, "route_question"),
        (
            RAGState(question="And k?", messages=THREAD, condensed_question="What is k in RRF?"),
            Context(),
            True,
            "condense_question",
        ),
        # a rewrite that carries a name redacted from an earlier turn would key two people alike
        (
            RAGState(question="And k?", messages=THREAD, condensed_question="What does <PERSON> say k is?"),
            Context(),
            False,
            "condense_question",
        ),
        (RAGState(question="What is RRF?", messages=[HumanMessage("What is RRF?")]), Context(), True, "check_cache"),
    ],
    ids=[
        "first-question",
        "cache-off",
        "pii",
        "no-pii",
        "no-question",
        "follow-up-raw",
        "follow-up-cache-off",
        "follow-up-condensed",
        "follow-up-placeholder",
        "one-message",
    ],
)
def test_the_cache_answers_first_questions_and_condensed_follow_ups_without_personal_data(
    state: RAGState, ctx: Context, cached: bool, after_analysis: str
) -> None:
    assert routes.cacheable(state, ctx) is cached
    assert routes.after_analysis(state, Runtime(context=ctx)) == after_analysis
    assert routes.cacheable(RAGState(**{**state, "mode": "search"}), ctx) is False
    # an answer from documents given with the question is theirs alone: never looked up, never kept
    assert routes.cacheable(RAGState(**{**state, "documents": [{"text": "a pasted memo"}]}), ctx) is False


def test_search_mode_goes_to_retrieval_and_ends_after_ranking() -> None:
    assert routes.after_analysis(RAGState(mode="search", question="BM25"), Runtime(context=Context())) == "retrieve"
    assert routes.after_retrieval(RAGState(mode="search")) == "finish_run"
    assert routes.after_retrieval(RAGState(mode="qa")) == "grade_context"


@pytest.mark.parametrize(
    ("route", "goes_to"),
    [
        ("vector_search", "rewrite_query"),
        ("web_search", "search_web"),
        ("direct_answer", "answer_directly"),
        ("given_documents", "read_documents"),
        (None, "rewrite_query"),
    ],
)
def test_the_route_chosen_picks_the_branch(route: str | None, goes_to: str) -> None:
    state = RAGState() if route is None else RAGState(route=route)
    assert routes.after_route(state) == goes_to


def test_a_blocked_question_and_a_cache_hit_end_the_run() -> None:
    assert routes.after_guard(RAGState(route="blocked")) == "finish_run"
    assert routes.after_guard(RAGState(route="")) == "analyze_query"
    assert routes.after_cache(RAGState(cache_hit=True)) == "finish_run"
    assert routes.after_cache(RAGState(cache_hit=False)) == "route_question"
