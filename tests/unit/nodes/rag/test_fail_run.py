"""Error end: users read a generic message in their language with the request id, never the error."""

from __future__ import annotations

import pytest

from components.factory import Components
from components.text.messages import ERROR_MESSAGE
from nodes.rag import fail_run
from tests.unit.nodes.helpers import run


@pytest.mark.parametrize("language", ["ja", "en"])
def test_the_answer_is_the_generic_message_with_the_request_id(components: Components, language: str) -> None:
    state = {"request_id": "req-42", "language": language, "fallback_reason": "generation failed (timed out)"}
    out = run(fail_run.make(components), state)
    assert out["answer"] == ERROR_MESSAGE[language].format(request_id="req-42")
    assert out["sources"] == [] and out["confidence"] == 0.0 and out["path"] == "none"
    assert out["escalation"] == {"reason": "generation failed (timed out)", "node": "fail_run", "request_id": "req-42"}


def test_without_a_request_id_or_reason_the_message_still_stands(components: Components) -> None:
    out = run(fail_run.make(components), {"language": "de"})
    assert out["answer"] == ERROR_MESSAGE["en"].format(request_id="-")
    assert out["escalation"]["reason"] == "error"
