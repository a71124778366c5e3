"""The per-run reset is derived from the state schema: no key of one run leaks into the next."""

from __future__ import annotations

from typing import Annotated, Any, get_type_hints

import pytest
from typing_extensions import TypedDict

from graph.state import THREAD_KEYS, InputState, RAGState, _empty, extend, input_reset, merge_dicts, run_reset


def test_every_state_key_is_reset_by_a_run_or_accumulates_over_the_thread() -> None:
    keys = set(get_type_hints(RAGState))
    covered = set(run_reset()) | set(input_reset()) | THREAD_KEYS
    assert keys == covered, f"neither reset nor declared accumulating: {sorted(keys - covered)}"
    assert {"messages"} == THREAD_KEYS
    assert not set(run_reset()) & set(input_reset())  # the caller's inputs survive the start of their run


def test_the_callers_inputs_are_cleared_at_the_end_and_keep_messages() -> None:
    assert set(input_reset()) == set(get_type_hints(InputState)) - {"messages"}
    assert input_reset()["mode"] == "qa" and input_reset()["top_k"] is None and input_reset()["question"] == ""


def test_accumulating_keys_reset_through_their_reducers() -> None:
    reset = run_reset()
    hints = get_type_hints(RAGState, include_extras=True)
    accumulating = {k for k, h in hints.items() if getattr(h, "__metadata__", None) and k not in THREAD_KEYS}
    assert accumulating == {"steps", "notes", "timings_ms", "trace"}
    assert all(reset[k] is None for k in accumulating)
    assert extend(["old"], None) == [] and merge_dicts({"old": 1}, None) == {}


def test_run_values_start_empty() -> None:
    reset = run_reset()
    assert reset["answer"] == "" and reset["path"] == "none" and reset["escalation"] is None
    assert reset["context_verdict"] is None and reset["context_failures"] == 0 and reset["passages"] == []
    reset["passages"].append("x")  # a caller's edit never changes the next run's reset
    assert run_reset()["passages"] == []


def test_a_key_whose_type_has_no_empty_value_fails_loudly() -> None:
    class Clock:
        pass

    with pytest.raises(TypeError, match="RESET_VALUES or THREAD_KEYS"):
        _empty("clock", Clock)

    class Record(TypedDict):
        a: int

    assert _empty("record", Record) == {}
    assert _empty("maybe", int | None) is None
    hint: Any = Annotated[list[int], extend]
    assert _empty("acc", hint) is None
