"""Circuit breakers: when a failing service is cut off, for how long, and how it comes back."""

from __future__ import annotations

import asyncio
import logging

import pytest

from components.resilience.breaker import Breakers, ServiceBreaker, from_settings
from components.resilience.errors import CircuitOpen, ServiceUnavailable
from components.settings import Settings


class FakeClock:
    """Time that moves only when the test says so, so a 30 s reset takes no real time."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def llm_breaker(clock: FakeClock, **kw: float) -> ServiceBreaker:
    return Breakers(clock=clock, **kw).get("llm")  # type: ignore[arg-type]


def fail(b: ServiceBreaker, n: int = 1) -> None:
    for _ in range(n):
        b.failure(TimeoutError("slow"))


def test_opens_after_fail_max_failures_within_the_window(clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    b = llm_breaker(clock, fail_max=5, window=60, reset=30)
    for _ in range(4):
        fail(b)
        clock.advance(10)
    assert b.state == "closed" and b.allow()
    with caplog.at_level(logging.WARNING, logger="components.resilience.breaker"):
        fail(b)  # 5th failure, 40 s after the first
    assert b.state == "open" and not b.allow()
    assert any("llm" in r.message and "open" in r.message for r in caplog.records)
    with pytest.raises(
        CircuitOpen, match=r"llm is unavailable: circuit breaker open after 5 failures; retrying in 30 s"
    ):
        b.acquire()


def test_failures_spread_over_more_than_the_window_do_not_open(clock: FakeClock) -> None:
    b = llm_breaker(clock, fail_max=5, window=60, reset=30)
    for _ in range(12):  # one failure every 20 s: never 5 within 60 s of the streak's first
        fail(b)
        clock.advance(20)
    assert b.state == "closed"
    assert b.failures < 5


def test_a_success_breaks_the_streak(clock: FakeClock) -> None:
    b = llm_breaker(clock, fail_max=3)
    fail(b, 2)
    b.success()
    fail(b, 2)
    assert b.state == "closed"
    fail(b)
    assert b.state == "open"


def test_half_open_trial_success_closes(clock: FakeClock, caplog: pytest.LogCaptureFixture) -> None:
    b = llm_breaker(clock, fail_max=2, reset=30)
    fail(b, 2)
    clock.advance(29)
    assert b.state == "open" and not b.allow()
    clock.advance(2)
    assert b.state == "half-open" and b.allow()
    b.acquire()  # the trial call
    assert not b.allow(), "only one trial call at a time"
    with pytest.raises(CircuitOpen):
        b.acquire()
    with caplog.at_level(logging.INFO, logger="components.resilience.breaker"):
        b.success()
    assert b.state == "closed" and b.allow()
    assert any("closed" in r.message for r in caplog.records)
    fail(b)  # the old streak is gone: one failure does not re-open
    assert b.state == "closed"


def test_half_open_trial_failure_reopens_for_another_reset(clock: FakeClock) -> None:
    b = llm_breaker(clock, fail_max=2, reset=30)
    fail(b, 2)
    clock.advance(31)
    b.acquire()
    fail(b)
    assert b.state == "open"
    clock.advance(29)
    assert b.state == "open"
    clock.advance(2)
    assert b.state == "half-open"


def test_an_abandoned_trial_does_not_block_the_breaker_forever(clock: FakeClock) -> None:
    b = llm_breaker(clock, fail_max=1, reset=10)
    fail(b)
    clock.advance(11)
    b.acquire()  # the caller never reports back
    assert not b.allow()
    clock.advance(11)
    assert b.allow()


def test_guard_records_outcomes_and_fails_fast_when_open(clock: FakeClock) -> None:
    b = llm_breaker(clock, fail_max=2, reset=30)
    calls = 0

    async def call(ok: bool) -> str:
        nonlocal calls
        async with b.guard():
            calls += 1
            if not ok:
                raise ConnectionError("refused")
            return "ok"

    async def scenario() -> None:
        for _ in range(2):
            with pytest.raises(ConnectionError):
                await call(ok=False)
        with pytest.raises(ServiceUnavailable, match="circuit breaker open"):
            await call(ok=True)
        assert calls == 2, "an open breaker must not reach the service"
        clock.advance(31)
        assert await call(ok=True) == "ok"
        assert b.state == "closed"

    asyncio.run(scenario())


def test_guard_does_not_count_cancellation_or_excluded_errors(clock: FakeClock) -> None:
    b = llm_breaker(clock, fail_max=1)

    async def scenario() -> None:
        with pytest.raises(ValueError):
            async with b.guard(is_failure=lambda e: not isinstance(e, ValueError)):
                raise ValueError("a bug in the caller, not an outage")
        task = asyncio.create_task(_guarded_sleep(b))
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert b.state == "closed"


async def _guarded_sleep(b: ServiceBreaker) -> None:
    async with b.guard():
        await asyncio.sleep(10)


def test_states_lists_every_service_used_and_breakers_are_shared(clock: FakeClock) -> None:
    breakers = Breakers(fail_max=1, clock=clock)
    assert breakers.states() == {}
    assert breakers.get("llm") is breakers.get("llm")
    breakers.get("vector_store").failure(ConnectionError("down"))
    breakers.get("reranker")
    assert breakers.states() == {"llm": "closed", "vector_store": "open", "reranker": "closed"}


def test_from_settings_uses_the_breaker_settings() -> None:
    s = Settings(breaker_fail_max=2, breaker_window=5, breaker_reset=7, _env_file=None)  # type: ignore[call-arg]
    b = from_settings(s)
    assert (b.fail_max, b.window, b.reset) == (2, 5, 7)


def test_real_clock_short_reset() -> None:
    """With the real clock and reset=0.2 s the breaker comes back without a long wait."""
    import time

    b = Breakers(fail_max=1, reset=0.2).get("web_search")
    b.failure(TimeoutError())
    assert b.state == "open"
    time.sleep(0.25)
    assert b.state == "half-open"
