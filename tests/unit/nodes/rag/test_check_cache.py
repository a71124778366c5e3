"""Semantic cache: a question answered before gets that answer at once, but only in the same scope
(index version, filters, who asks) and never for a question carrying personal data."""

from __future__ import annotations

from typing import Any

import pytest

from components.factory import Components
from components.text import messages
from graph.context import Context
from nodes.rag import check_cache, finish_run
from tests.unit.nodes.helpers import MONSTERA, answered, run


@pytest.fixture(autouse=True)
def nothing_answered_yet(notes: Components) -> None:
    notes.cache.clear()


def ask(notes: Components, ctx: Context | None = None, **state: Any) -> dict[str, Any]:
    return run(check_cache.make(notes), {"question": MONSTERA, "language": "en", **state}, ctx)


def test_a_question_answered_before_is_answered_from_the_cache_with_a_warning(notes: Components) -> None:
    assert ask(notes) == {"cache_hit": False}
    first = answered()
    run(finish_run.make(notes), first)
    out = ask(notes)
    assert out["cache_hit"] is True
    assert {k: out[k] for k in finish_run.CACHED_KEYS} == {k: first[k] for k in finish_run.CACHED_KEYS}
    assert out["notes"] == [messages.CACHE_HIT.format(question=MONSTERA)]
    assert out["trace"]["collection"] == notes.index().collection


@pytest.mark.parametrize(
    ("ctx", "state"),
    [
        (Context(user_id="bob"), {}),  # another user
        (Context(), {"search_filters": {"vaults": ["life"]}}),  # other filters
        (Context(), {"language": "ja"}),
        (Context(cache=False), {}),
        (Context(), {"guardrail": {"allowed": True, "category": None, "reason": "", "pii": ["PERSON"]}}),
    ],
    ids=["other-user", "other-filters", "other-language", "cache-off", "personal-data"],
)
def test_an_answer_is_not_given_outside_its_scope(notes: Components, ctx: Context, state: dict[str, Any]) -> None:
    run(finish_run.make(notes), answered())
    assert ask(notes, ctx, **state) == {"cache_hit": False}
    assert ask(notes)["cache_hit"], "in its own scope the answer is there"
