"""The guardrail policy in guardrails/policy.py is what the checks and the routers apply."""

from __future__ import annotations

from langchain_core.messages import HumanMessage

from graph.context import Context
from graph.routes import cacheable
from graph.state import GuardrailVerdict, RAGState
from guardrails import POLICY, check_input, refusal


def test_input_limit_and_its_message_follow_the_policy() -> None:
    at_limit = "a" * POLICY.max_input_chars
    assert check_input(at_limit).allowed
    over = check_input(at_limit + "a")
    assert not over.allowed and over.category == "too_long"
    assert f"at most {POLICY.max_input_chars} characters" in refusal("too_long", "en")
    assert f"{POLICY.max_input_chars} 文字以内" in refusal("too_long", "ja")


def _state(pii: list[str]) -> RAGState:
    guard = GuardrailVerdict(allowed=True, category=None, reason="", pii=pii)
    return {"question": "What is my phone number?", "mode": "qa", "guardrail": guard, "messages": [HumanMessage("q")]}


def test_answers_to_questions_with_personal_data_are_not_cached() -> None:
    assert not POLICY.cache_answers_with_pii
    assert cacheable(_state([]), Context())
    assert not cacheable(_state(["phone"]), Context())
