import pytest

from components.resilience import run_budget
from components.resilience.run_budget import RunBudget


def test_a_run_stops_asking_after_a_timeout_and_others_go_on() -> None:
    budget = RunBudget(deadline=60.0)
    assert budget.why_not("q1") == "" and budget.why_not("q2") == ""
    budget.stall("q1", "the router model did not answer within 15 s")
    budget.stall("q1", "a later reason")  # the first reason is the one users are told
    assert budget.why_not("q1") == "the router model did not answer within 15 s"
    assert budget.why_not("q2") == ""
    assert budget.why_not("") == ""  # outside a run (a direct call): nothing to track
    budget.stall("", "ignored")
    assert budget.why_not("") == ""


def test_the_deadline_counts_from_the_runs_first_llm_call() -> None:
    now = [100.0]
    budget = RunBudget(deadline=30.0, clock=lambda: now[0])
    assert budget.why_not("q") == ""  # starts the clock
    now[0] = 129.0
    assert budget.why_not("q") == "" and budget.why_not("late") == ""
    now[0] = 131.0
    assert "over 30 s (LLM_RUN_DEADLINE)" in budget.why_not("q")
    assert budget.why_not("late") == ""  # its clock started at 129


def test_old_runs_are_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(run_budget, "MAX_RUNS", 3)
    budget = RunBudget(deadline=60.0)
    budget.stall("a", "x")
    for run in ("b", "c", "d"):
        budget.why_not(run)
    assert budget.why_not("a") == ""  # evicted: a new run with the same id starts afresh
