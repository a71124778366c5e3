"""Circuit breakers per external service, shared by every run in the process.

When the vector store, the LLM, the reranker or web search is down, each run would otherwise
wait for its own timeout before falling back. A breaker remembers recent failures across runs:
after ``fail_max`` consecutive failures that all happen within ``window`` seconds it opens, and
calls fail fast with :class:`~components.resilience.errors.CircuitOpen` for ``reset`` seconds.
Then one trial call is let through (half-open): success closes the breaker, failure opens it again.

Every caller uses one form, an async context manager around the service call::

    async with breakers.guard("vector_store"):
        hits = await asyncio.to_thread(search, ...)

It raises ``CircuitOpen`` at the door when the breaker refuses calls, and records the body's
outcome: success, a failure (an exception that ``is_failure`` accepts), or no verdict
(cancellation, the caller's own bad input). No caller needs a sync form: every service call
in the graph runs in an async node.

Why pybreaker, and why the guard is written here. pybreaker 1.4 provides the state machine
(closed / open / half-open, failure and success counters, listeners on state changes) and a
storage interface meant to be subclassed. Its own ways of running a call do not fit asyncio:
``call_async`` is for Tornado coroutines, and ``calling()`` is a sync context manager that
counts every ``BaseException`` as a failure, so a cancelled task would trip the breaker; and it
lets every concurrent call through while half-open. So the guard is written here, on
pybreaker's public API only: outcomes are reported through ``CircuitBreaker.call`` (a no-op
that succeeds, or one that raises the call's error), ``half_open()`` moves an open breaker to
its trial, and :class:`_WindowedStorage` implements ``CircuitBreakerStorage``. What pybreaker
lacks is added here: the time window for a failure streak (pybreaker counts consecutive
failures forever), an injectable clock (tests run the reset timeout without sleeping through
it), and a single half-open trial shared by concurrent runs. An asyncio-native library
(aiobreaker, purgatory) was weighed: none has the window, the single trial and the
cancellation rule either, so it would replace one gap with others.

A node's timeout (LangGraph's ``timeout=`` on ``add_node``) cancels the node; inside the guard a
cancellation by timeout looks the same as a client that went away, so the guard gives no
verdict and the node's error handler, which receives ``NodeTimeoutError``, counts the timeout
with :meth:`Breakers.record_failure` (``nodes/rag/failures.py``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Literal, cast

import pybreaker

from components.resilience.errors import CircuitOpen, QueryError

if TYPE_CHECKING:
    from components.settings import Settings

logger = logging.getLogger(__name__)

BreakerState = Literal["closed", "open", "half-open"]
Clock = Callable[[], float]
IsFailure = Callable[[BaseException], bool]

SERVICES = ("vector_store", "llm", "reranker", "web_search")
"""The services the graph guards; ``Breakers.get`` accepts any name, these are the ones in use."""


def counts_against_service(exc: BaseException) -> bool:
    """The guard's default rule: every error counts, except a :class:`QueryError` (the caller's own input)."""
    return not isinstance(exc, QueryError)


class _WindowedStorage(pybreaker.CircuitBreakerStorage):
    """In-memory breaker storage whose failure streak restarts when it outlives ``window``.

    pybreaker asks the storage to increment the counter before it compares it with ``fail_max``,
    so restarting the streak here is enough for the breaker to open only on failures that are
    close together. The time the breaker opened is also kept on the injected clock (pybreaker
    passes wall time), so the reset timeout follows that clock.
    """

    def __init__(self, *, window: float, clock: Clock) -> None:
        super().__init__("windowed-memory")
        self._window = window
        self._clock = clock
        self._state: str = pybreaker.STATE_CLOSED
        self._counter = 0
        self._successes = 0
        self._opened_at: datetime | None = None
        self._streak_start: float | None = None
        self.opened_at_clock: float | None = None

    @property
    def state(self) -> str:
        return self._state

    @state.setter
    def state(self, state: str) -> None:
        self._state = state

    def increment_counter(self) -> None:
        now = self._clock()
        if self._streak_start is None or self._counter == 0 or now - self._streak_start > self._window:
            self._counter = 0
            self._streak_start = now
        self._counter += 1

    def reset_counter(self) -> None:
        self._counter = 0
        self._streak_start = None

    def increment_success_counter(self) -> None:
        self._successes += 1

    def reset_success_counter(self) -> None:
        self._successes = 0

    @property
    def counter(self) -> int:
        return self._counter

    @property
    def success_counter(self) -> int:
        return self._successes

    @property
    def opened_at(self) -> datetime | None:
        return self._opened_at

    @opened_at.setter
    def opened_at(self, value: datetime) -> None:
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


def _succeed() -> None:
    return None


def _raise(exc: BaseException) -> None:
    raise exc


class ServiceBreaker:
    """The breaker of one service. Thread-safe; callers use :meth:`guard` (or :meth:`Breakers.guard`).

    ``allow()`` is a query (it does not reserve anything), so a status page may call it freely;
    :meth:`guard` reserves the single half-open trial, so concurrent runs do not all hit a
    service that is just coming back. ``acquire`` / ``success`` / ``failure`` / ``release`` are
    the steps the guard is made of; outside the guard only ``failure`` has a use: counting a
    failure that the guard could not see (a node's timeout).
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
        self._trial: object | None = None  # the guard holding the half-open trial
        self._trial_started: float | None = None

    # -- state -----------------------------------------------------------------------------

    def _refresh(self) -> str:
        """Move open -> half-open once ``reset`` has passed (pybreaker only does this inside a call)."""
        with self._lock:
            state = self._cb.current_state
            if state == pybreaker.STATE_OPEN and self.retry_in() <= 0:
                self._cb.half_open()
                self._clear_trial()
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

    def _clear_trial(self) -> None:
        self._trial = None
        self._trial_started = None

    def allow(self) -> bool:
        """Whether a call would go through now: closed, or half-open with no trial in flight."""
        with self._lock:
            state = self._refresh()
            if state == pybreaker.STATE_OPEN:
                return False
            return not (state == pybreaker.STATE_HALF_OPEN and self._trial_busy())

    # -- the guard -------------------------------------------------------------------------

    @asynccontextmanager
    async def guard(self, *, is_failure: IsFailure | None = None) -> AsyncIterator[None]:
        """Run the body through the breaker: raise :class:`CircuitOpen` when it refuses calls, record the outcome.

        ``is_failure`` decides which exceptions count against the service (default:
        :func:`counts_against_service`). Cancellation and the exceptions it rejects give no
        verdict, since they say nothing about the service's health; they only give back the
        half-open trial if this call held it.
        """
        rule = is_failure or counts_against_service
        token = self._admit()
        try:
            yield
        except Exception as exc:
            if rule(exc):
                self.failure(exc)
            else:
                self._give_back(token)
            raise
        except BaseException:
            self._give_back(token)
            raise
        else:
            self.success()

    def _admit(self) -> object | None:
        """Let a call in or raise :class:`CircuitOpen`; returns a token when the call is the half-open trial."""
        with self._lock:
            if not self.allow():
                raise self.unavailable()
            if self._cb.current_state != pybreaker.STATE_HALF_OPEN:
                return None
            self._trial = token = object()
            self._trial_started = self._clock()
            return token

    def _give_back(self, token: object | None) -> None:
        with self._lock:
            if token is not None and self._trial is token:
                self._clear_trial()

    # -- the steps of a guarded call --------------------------------------------------------

    def acquire(self) -> None:
        """Let a call in (reserving the half-open trial) or raise :class:`CircuitOpen`; :meth:`guard` does this."""
        self._admit()

    def success(self) -> None:
        """Record a successful call: resets the streak, closes a half-open breaker."""
        with self._lock:
            self._clear_trial()
            if self._cb.current_state == pybreaker.STATE_OPEN:
                return  # a call that started before the breaker opened proves nothing about now
            self._cb.call(_succeed)

    def failure(self, exc: BaseException) -> None:
        """Record a failed call: counts towards opening; a failed half-open trial re-opens at once."""
        with self._lock:
            self._clear_trial()
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
        """Give back the half-open trial without a verdict (the call was cancelled, or failed for another reason)."""
        with self._lock:
            self._clear_trial()

    def unavailable(self) -> CircuitOpen:
        """The error a refused call raises; says when the next try happens."""
        retry = self.retry_in() or self._reset
        n = self.failures
        return CircuitOpen(
            f"{self.service} is unavailable: circuit breaker open after {n} failure{'s' if n != 1 else ''}; "
            f"retrying in {retry:.0f} s",
            service=self.service,
            retry_in=retry,
        )


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

    def guard(self, service: str, *, is_failure: IsFailure | None = None) -> AbstractAsyncContextManager[None]:
        """``async with breakers.guard(service):`` around a call to ``service`` (see :meth:`ServiceBreaker.guard`)."""
        return self.get(service).guard(is_failure=is_failure)

    def allow(self, service: str) -> bool:
        """Whether a call to ``service`` would go through now, so a caller can take its fallback without trying."""
        return self.get(service).allow()

    def record_failure(self, service: str, error: BaseException) -> None:
        """Count a failure the guard could not see: a node's timeout cancels the body; only its handler knows why."""
        self.get(service).failure(error)

    def states(self) -> dict[str, str]:
        """State of every breaker used so far, for ``rag status`` and debug output."""
        with self._lock:
            breakers = list(self._breakers.values())
        return {b.service: b.state for b in breakers}


def from_settings(s: Settings) -> Breakers:
    """Breakers with the process settings' thresholds (BREAKER_FAIL_MAX, BREAKER_WINDOW, BREAKER_RESET)."""
    return Breakers(fail_max=s.breaker_fail_max, window=s.breaker_window, reset=s.breaker_reset)


__all__ = [
    "SERVICES",
    "BreakerState",
    "Breakers",
    "CircuitOpen",
    "ServiceBreaker",
    "counts_against_service",
    "from_settings",
]
