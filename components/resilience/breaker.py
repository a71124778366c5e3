"""Circuit breakers per external service, shared by every run in the process.

When the vector store, the LLM, the reranker or web search is down, each run would otherwise
wait for its own timeout before falling back. A breaker remembers recent failures across runs:
after ``fail_max`` consecutive failures that all happen within ``window`` seconds it opens, and
calls fail fast with :class:`~components.resilience.errors.CircuitOpen` for ``reset`` seconds. Then one
trial call is let through (half-open): success closes the breaker, failure opens it again.

pybreaker provides the state machine (closed / open / half-open, failure and success counters,
listeners for state changes). Two things it lacks are added here: the time window for a failure
streak (pybreaker counts consecutive failures forever) and an injectable clock, so tests run
the reset timeout without sleeping through it. Async callers use :meth:`ServiceBreaker.guard`
or ``allow()`` / ``success()`` / ``failure()``; pybreaker's lock is never held across an ``await``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Literal, cast

import pybreaker

from components.resilience.errors import CircuitOpen

if TYPE_CHECKING:
    from components.settings import Settings

logger = logging.getLogger(__name__)

BreakerState = Literal["closed", "open", "half-open"]
Clock = Callable[[], float]

SERVICES = ("vector_store", "llm", "reranker", "web_search")
"""The services the graph guards; ``Breakers.get`` accepts any name, these are the ones in use."""


class _WindowedStorage(pybreaker.CircuitMemoryStorage):
    """pybreaker's in-memory storage whose failure streak restarts when it outlives ``window``.

    pybreaker asks the storage to increment the counter before it compares it with ``fail_max``,
    so restarting the streak here is enough for the breaker to open only on failures that are
    close together. ``opened_at`` is also kept on the injected clock (pybreaker writes wall time).
    """

    def __init__(self, *, window: float, clock: Clock) -> None:
        super().__init__(pybreaker.STATE_CLOSED)
        self._window = window
        self._clock = clock
        self._streak_start: float | None = None
        self.opened_at_clock: float | None = None

    def increment_counter(self) -> None:
        now = self._clock()
        if self._streak_start is None or self.counter == 0 or now - self._streak_start > self._window:
            self.reset_counter()
            self._streak_start = now
        super().increment_counter()

    def reset_counter(self) -> None:
        super().reset_counter()
        self._streak_start = None

    @property
    def opened_at(self) -> datetime | None:
        return self._opened_at

    @opened_at.setter
    def opened_at(self, value: datetime) -> None:
        # pybreaker passes datetime.now(UTC); the reset timeout is measured on the injected clock instead
        self._opened_at = value
        self.opened_at_clock = self._clock()


class _LogStateChanges(pybreaker.CircuitBreakerListener):
    """Logs every state change: a warning when a service is cut off, info when it is back."""

    def state_change(
        self,
        cb: pybreaker.CircuitBreaker,
        old_state: pybreaker.CircuitBreakerState | None,
        new_state: pybreaker.CircuitBreakerState,
    ) -> None:
        old = old_state.name if old_state else "none"
        if new_state.name == pybreaker.STATE_OPEN:
            logger.warning(
                "circuit breaker %s: %s -> open after %d consecutive failures; calls fail fast for %.1f s",
                cb.name,
                old,
                cb.fail_counter,
                cb.reset_timeout,
            )
        elif new_state.name == pybreaker.STATE_CLOSED:
            logger.info("circuit breaker %s: %s -> closed; the service answers again", cb.name, old)
        else:
            logger.info("circuit breaker %s: %s -> half-open; letting one trial call through", cb.name, old)


def _raise(exc: BaseException) -> None:
    raise exc


class ServiceBreaker:
    """The breaker of one service. Thread-safe; async code uses :meth:`guard`.

    ``allow()`` is a query (it does not reserve anything), so a status page may call it freely;
    :meth:`guard` reserves the single half-open trial, so concurrent runs do not all hit a
    service that is just coming back.
    """

    def __init__(self, service: str, *, fail_max: int, window: float, reset: float, clock: Clock) -> None:
        if fail_max < 1 or window <= 0 or reset <= 0:
            raise ValueError(f"breaker {service}: fail_max >= 1, window > 0 and reset > 0 are required")
        self.service = service
        self._clock = clock
        self._reset = reset
        self._storage = _WindowedStorage(window=window, clock=clock)
        self._cb = pybreaker.CircuitBreaker(
            fail_max=fail_max,
            reset_timeout=reset,
            state_storage=self._storage,
            listeners=[_LogStateChanges()],
            name=service,
        )
        self._lock = threading.RLock()
        self._trial_started: float | None = None

    # -- state -----------------------------------------------------------------------------

    def _refresh(self) -> str:
        """Move open -> half-open once ``reset`` has passed (pybreaker only does this inside a call)."""
        with self._lock:
            state = self._cb.current_state
            if state == pybreaker.STATE_OPEN and self.retry_in() <= 0:
                self._cb.half_open()
                self._trial_started = None
                state = pybreaker.STATE_HALF_OPEN
            return state

    @property
    def state(self) -> BreakerState:
        """``closed`` (calls go through), ``open`` (calls fail fast) or ``half-open`` (a trial is due)."""
        return cast(BreakerState, self._refresh())

    @property
    def failures(self) -> int:
        """Failures in the current streak (the count that opened the breaker while it is open)."""
        return self._cb.fail_counter

    def retry_in(self) -> float:
        """Seconds until an open breaker lets a trial call through (0 when it is not open)."""
        opened = self._storage.opened_at_clock
        if self._cb.current_state != pybreaker.STATE_OPEN or opened is None:
            return 0.0
        return max(0.0, opened + self._reset - self._clock())

    def _trial_busy(self) -> bool:
        # a trial whose caller never reported back is given up after `reset`, so the breaker cannot stick
        return self._trial_started is not None and self._clock() - self._trial_started < self._reset

    def allow(self) -> bool:
        """Whether a call would go through now: closed, or half-open with no trial in flight."""
        with self._lock:
            state = self._refresh()
            if state == pybreaker.STATE_OPEN:
                return False
            return not (state == pybreaker.STATE_HALF_OPEN and self._trial_busy())

    # -- outcomes --------------------------------------------------------------------------

    def success(self) -> None:
        """Record a successful call: resets the streak, closes a half-open breaker."""
        with self._lock:
            self._trial_started = None
            if self._cb.current_state == pybreaker.STATE_OPEN:
                return  # a call that started before the breaker opened proves nothing about now
            self._cb.call(lambda: None)

    def failure(self, exc: BaseException) -> None:
        """Record a failed call: counts towards opening; a failed half-open trial re-opens at once."""
        with self._lock:
            self._trial_started = None
            if self._cb.current_state == pybreaker.STATE_OPEN:
                return  # already open: a late failure must not extend the wait
            try:
                self._cb.call(_raise, exc)
            except pybreaker.CircuitBreakerError:
                pass  # pybreaker's signal that this failure opened the breaker; the listener logged it
            except BaseException as raised:
                if raised is not exc:
                    raise

    def release(self) -> None:
        """Give back a reserved trial without a verdict (the call was cancelled or failed for a non-service reason)."""
        with self._lock:
            self._trial_started = None

    def unavailable(self) -> CircuitOpen:
        """The error callers raise while the breaker refuses calls; says when the next try happens."""
        retry = self.retry_in() or self._reset
        n = self.failures
        return CircuitOpen(
            f"{self.service} is unavailable: circuit breaker open after {n} failure{'s' if n != 1 else ''}; "
            f"retrying in {retry:.0f} s",
            service=self.service,
            retry_in=retry,
        )

    def acquire(self) -> None:
        """Reserve a call slot or raise :class:`CircuitOpen`; pair with success / failure / release."""
        with self._lock:
            if not self.allow():
                raise self.unavailable()
            if self._cb.current_state == pybreaker.STATE_HALF_OPEN:
                self._trial_started = self._clock()

    @asynccontextmanager
    async def guard(
        self, *, is_failure: Callable[[BaseException], bool] | None = None
    ) -> AsyncIterator[ServiceBreaker]:
        """Run the body through the breaker: raise :class:`CircuitOpen` when open, record the outcome.

        ``is_failure`` decides which exceptions count against the service (default: every
        ``Exception``). Cancellation and exceptions it rejects release the trial without a verdict,
        since they say nothing about the service's health.
        """
        self.acquire()
        try:
            yield self
        except Exception as exc:
            if is_failure is None or is_failure(exc):
                self.failure(exc)
            else:
                self.release()
            raise
        except BaseException:
            self.release()
            raise
        else:
            self.success()


class Breakers:
    """One :class:`ServiceBreaker` per service name, created on first use, shared across runs."""

    def __init__(
        self, *, fail_max: int = 5, window: float = 60.0, reset: float = 30.0, clock: Clock = time.monotonic
    ) -> None:
        if fail_max < 1 or window <= 0 or reset <= 0:
            raise ValueError("Breakers: fail_max >= 1, window > 0 and reset > 0 are required")
        self.fail_max = fail_max
        self.window = window
        self.reset = reset
        self._clock = clock
        self._breakers: dict[str, ServiceBreaker] = {}
        self._lock = threading.Lock()

    def get(self, service: str) -> ServiceBreaker:
        """The breaker of ``service`` (``vector_store``, ``llm``, ``reranker``, ``web_search``, ...)."""
        with self._lock:
            breaker = self._breakers.get(service)
            if breaker is None:
                breaker = ServiceBreaker(
                    service, fail_max=self.fail_max, window=self.window, reset=self.reset, clock=self._clock
                )
                self._breakers[service] = breaker
            return breaker

    def states(self) -> dict[str, str]:
        """State of every breaker used so far, for ``rag status`` and debug output."""
        with self._lock:
            breakers = list(self._breakers.values())
        return {b.service: b.state for b in breakers}


def from_settings(s: Settings) -> Breakers:
    """Breakers with the process settings' thresholds (BREAKER_FAIL_MAX, BREAKER_WINDOW, BREAKER_RESET)."""
    return Breakers(fail_max=s.breaker_fail_max, window=s.breaker_window, reset=s.breaker_reset)


__all__ = ["SERVICES", "BreakerState", "Breakers", "CircuitOpen", "ServiceBreaker", "from_settings"]
