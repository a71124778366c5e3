"""The one way callers use a breaker: ``async with breakers.guard(service):`` around the service call."""

from __future__ import annotations

import asyncio

import pytest

from components.resilience.breaker import Breakers
from components.resilience.errors import CircuitOpen, QueryError


class FakeClock:
    """Time that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def breakers(clock: FakeClock, fail_max: int = 2, reset: float = 30) -> Breakers:
    return Breakers(fail_max=fail_max, reset=reset, clock=clock)


async def call(b: Breakers, service: str, outcome: BaseException | None = None) -> str:
    async with b.guard(service):
        if outcome is not None:
            raise outcome
        return "ok"


def test_failures_in_the_body_open_the_breaker_and_then_the_body_is_not_run() -> None:
    b = breakers(FakeClock())
    ran: list[str] = []

    async def scenario() -> None:
        for _ in range(2):
            with pytest.raises(ConnectionError):
                await call(b, "vector_store", ConnectionError("refused"))
        with pytest.raises(CircuitOpen, match="vector_store is unavailable") as refused:
            async with b.guard("vector_store"):
                ran.append("body")
        assert refused.value.service == "vector_store" and refused.value.retry_in == 30

    asyncio.run(scenario())
    assert ran == [], "an open breaker must not reach the service"
    assert b.states() == {"vector_store": "open"}
    assert not b.allow("vector_store") and b.allow("reranker"), "breakers are per service"


def test_a_query_error_is_the_callers_input_and_does_not_count() -> None:
    b = breakers(FakeClock(), fail_max=1)
    with pytest.raises(QueryError):
        asyncio.run(call(b, "vector_store", QueryError("no such document")))
    assert b.states()["vector_store"] == "closed"


def test_half_open_lets_exactly_one_of_several_concurrent_calls_through() -> None:
    clock = FakeClock()
    b = breakers(clock, fail_max=1, reset=30)
    b.record_failure("llm", TimeoutError("slow"))
    clock.now += 31
    release = asyncio.Event()
    entered: list[int] = []

    async def trial(i: int) -> None:
        async with b.guard("llm"):
            entered.append(i)
            await release.wait()

    async def scenario() -> list[BaseException | None]:
        tasks = [asyncio.create_task(trial(i)) for i in range(3)]
        await asyncio.sleep(0.01)
        release.set()
        return await asyncio.gather(*tasks, return_exceptions=True)

    outcomes = asyncio.run(scenario())
    assert entered == [0]
    assert outcomes[0] is None and all(isinstance(o, CircuitOpen) for o in outcomes[1:])
    assert b.states()["llm"] == "closed", "the trial succeeded"


def test_a_cancelled_trial_gives_the_trial_back_at_once() -> None:
    clock = FakeClock()
    b = breakers(clock, fail_max=1, reset=30)
    b.record_failure("llm", TimeoutError("slow"))
    clock.now += 31

    async def scenario() -> None:
        hung = asyncio.create_task(call_that_hangs(b))
        await asyncio.sleep(0.01)
        assert not b.allow("llm"), "the trial is in flight"
        hung.cancel()
        with pytest.raises(asyncio.CancelledError):
            await hung
        assert b.allow("llm"), "a cancellation says nothing about the service: the next call is the trial"
        assert await call(b, "llm") == "ok"

    asyncio.run(scenario())
    assert b.states()["llm"] == "closed"


def test_a_cancelled_call_that_was_not_the_trial_leaves_the_trial_alone() -> None:
    clock = FakeClock()
    b = breakers(clock, fail_max=1, reset=30)

    async def scenario() -> None:
        early = asyncio.create_task(call_that_hangs(b))  # entered while closed
        await asyncio.sleep(0.01)
        b.record_failure("llm", ConnectionError("down"))  # another run opens the breaker
        clock.now += 31
        trial = asyncio.create_task(call_that_hangs(b))  # the half-open trial
        await asyncio.sleep(0.01)
        early.cancel()
        await asyncio.gather(early, return_exceptions=True)
        assert not b.allow("llm"), "the trial is still in flight"
        trial.cancel()
        await asyncio.gather(trial, return_exceptions=True)
        assert b.allow("llm")

    asyncio.run(scenario())


def test_record_failure_counts_what_the_guard_could_not_see() -> None:
    """A node's timeout cancels the guarded body (no verdict); its error handler counts it instead."""
    b = breakers(FakeClock(), fail_max=2)

    async def timed_out() -> None:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.01):
                await call_that_hangs(b, "vector_store")

    for _ in range(2):
        asyncio.run(timed_out())
    assert b.states()["vector_store"] == "closed", "cancellation alone is no verdict"
    b.record_failure("vector_store", TimeoutError("node timeout"))
    b.record_failure("vector_store", TimeoutError("node timeout"))
    assert b.states()["vector_store"] == "open"


async def call_that_hangs(b: Breakers, service: str = "llm") -> None:
    async with b.guard(service):
        await asyncio.sleep(10)
