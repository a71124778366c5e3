"""The polite "cannot answer" at the end of a bounded loop: in the question's language, with the
loop that hit its cap named for a person to follow up."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from components.factory import Components
from components.text.messages import FALLBACK
from graph.context import Context
from nodes.rag import fallback_answer
from tests.unit.nodes.helpers import run

NOT_GROUNDED = {"grounded": False, "score": 0.2, "unsupported": ["x"], "path": "sentence_support"}
NOT_USEFUL = {"useful": False, "score": 0.1, "reason": "", "path": "similarity"}
NOT_RELEVANT = {"relevant": False, "score": 0.1, "reason": "", "path": "calibrated", "ranks": []}


@pytest.mark.parametrize(
    ("verdicts", "reason"),
    [
        ({"hallucination": NOT_GROUNDED}, "answer not grounded after 1 regeneration(s)"),
        ({"answer_verdict": NOT_USEFUL}, "answer not useful after 2 rewrite(s)"),
        ({"context_verdict": NOT_RELEVANT}, "no relevant context after 3 rewrite(s)"),
        ({"fallback_reason": "web search found nothing"}, "web search found nothing"),
        ({}, "no answer could be produced"),
    ],
)
def test_the_reason_names_the_loop_that_reached_its_cap(
    components: Components, verdicts: dict[str, Any], reason: str
) -> None:
    ctx = Context(max_regenerations=1, max_answer_rewrites=2, max_context_rewrites=3)
    out = run(fallback_answer.make(components), {"question": "q", "language": "en", **verdicts}, ctx)
    assert out["fallback_reason"] == reason and out["escalation"]["reason"] == reason


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_answer_is_the_polite_fallback_in_the_questions_language_with_the_counts(
    components: Components, language: str, caplog: pytest.LogCaptureFixture
) -> None:
    state = {"question": "q", "language": language, "context_failures": 3, "rewrites": 3, "request_id": "r1"}
    with caplog.at_level(logging.WARNING, logger="nodes.rag.fallback_answer"):
        out = run(fallback_answer.make(components), state)
    assert out["answer"] == FALLBACK[language]
    assert out["sources"] == [] and out["confidence"] == 0.0 and out["path"] == "none"
    counts = {"context_failures": 3, "hallucination_failures": 0, "answer_failures": 0, "rewrites": 3}
    assert out["escalation"] == {"reason": "no answer could be produced", "node": "fallback_answer", **counts}
    assert "fallback answer for request r1" in caplog.text
