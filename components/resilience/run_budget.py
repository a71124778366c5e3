"""One run's LLM time: after a call times out, or once the run's deadline has passed, its other
LLM nodes take their non-LLM paths at once (a refused connection, which costs nothing, does not).

A question's run asks the LLM up to eight times (analysis, routing, rewrite, three graders,
generation and its retries). Against a server that accepts connections and never answers, each
call would wait out its own timeout, minutes in all, and the circuit breaker (which counts
failures across runs) opens only after five of them. A run that has seen one timeout learns
nothing new from the next call, so it stops asking: the first timeout costs one timeout.

Runs are told apart by their request id (``RAGState.request_id``); the ledger keeps the most
recent runs only, so it stays small in a long-lived server.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

#: runs remembered at once; older ones are forgotten (a run lasts seconds to minutes)
MAX_RUNS = 4096


@dataclass
class _Run:
    started: float
    stalled: str = ""


class RunBudget:
    """Per run: when its first LLM call started, and why the LLM is off for the rest of it."""

    def __init__(self, deadline: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.deadline = deadline
        self._clock = clock
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self._lock = threading.Lock()

    def _run(self, run: str) -> _Run:
        r = self._runs.get(run)
        if r is None:
            r = self._runs[run] = _Run(self._clock())
            while len(self._runs) > MAX_RUNS:
                self._runs.popitem(last=False)
        return r

    def why_not(self, run: str) -> str:
        """Why this run must not call the LLM any more ('' when it may); starts the run's clock."""
        if not run:
            return ""
        with self._lock:
            r = self._run(run)
            if not r.stalled and self._clock() - r.started > self.deadline:
                r.stalled = (
                    f"this question's LLM calls have taken over {self.deadline:g} s (LLM_RUN_DEADLINE); "
                    f"the rest of it is answered without the LLM"
                )
            return r.stalled

    def stall(self, run: str, reason: str) -> None:
        """No more LLM calls for this run, because of ``reason`` (the first reason is kept)."""
        if not run:
            return
        with self._lock:
            r = self._run(run)
            r.stalled = r.stalled or reason
