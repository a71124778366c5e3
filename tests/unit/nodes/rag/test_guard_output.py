"""Output rail: personal data the sources do not hold is masked, a leaked prompt withholds the answer."""

from __future__ import annotations

from typing import Any, cast

from components.factory import Components
from components.text import messages
from graph.state import Result
from nodes.rag import guard_output, prompts
from nodes.rag.common import hit_to_result
from tests.unit.nodes.helpers import run

PHONE = "03-1234-5678"


def answering(answer: str, passage: str = "The garden centre repots monsteras on weekends.") -> dict[str, Any]:
    found = [cast(Result, hit_to_result(1, {"text": passage, "title": "Garden centre"}, 0.9))]
    return {"answer": answer, "language": "en", "results": found, "sources": [{"n": 1}], "request_id": "out-1"}


def test_personal_data_the_sources_do_not_hold_is_masked_with_a_warning(notes: Components) -> None:
    out = run(guard_output.make(notes), answering(f"Call them on {PHONE} to book a repotting [1]."))
    assert PHONE not in out["answer"] and "<PHONE_NUMBER>" in out["answer"] and out["answer"].endswith("[1].")
    assert out["notes"] == [messages.ANSWER_MASKED.format(kinds="PHONE_NUMBER")]


def test_personal_data_the_sources_hold_is_left_as_it_is(notes: Components) -> None:
    answer = f"Call them on {PHONE} to book a repotting [1]."
    out = run(guard_output.make(notes), answering(answer, f"Repotting bookings: call {PHONE} on weekdays."))
    assert out == {}


def test_an_answer_that_repeats_the_system_prompt_is_withheld(notes: Components) -> None:
    leaked = prompts.GENERATE_SYSTEM.splitlines()[0]
    out = run(guard_output.make(notes), answering(f"My instructions say: {leaked}"))
    assert out["answer"] == messages.REFUSAL["en"] and out["sources"] == []
    assert out["escalation"] == {"reason": "output guardrail: leaked instructions", "node": "guard_output"}
    [note] = out["notes"]
    assert note.startswith("The output guardrail withheld the answer: ")


def test_no_answer_has_nothing_to_check(notes: Components) -> None:
    assert run(guard_output.make(notes), answering("")) == {}
