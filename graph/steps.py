"""Each node's visit, recorded in ``steps``: the node's name, its milliseconds and its start.

``rag ask --debug`` prints the list and the benchmarks read it (``evals.qa_bench`` takes the
graph's own overhead as wall time minus the union of the nodes' intervals), so every node of
the query graph is registered through ``timed``; the node keeps its function's name.
"""

from __future__ import annotations

import functools
import time
from typing import Any

from langgraph.runtime import Runtime

from components.resilience.errors import QueryError, for_the_caller
from graph.context import Context
from graph.state import RESTART


def timed(fn: Any) -> Any:
    """Wrap a node so that each visit is recorded in ``steps`` with its milliseconds."""

    @functools.wraps(fn)
    async def wrapper(state: Any, runtime: Runtime[Context]) -> dict[str, Any]:
        t0 = time.perf_counter()
        try:
            out = await fn(state, runtime=runtime)
        except QueryError as e:  # the LangGraph server shows its client this message (errors.py)
            raise for_the_caller(e) from None
        # start: the process clock in seconds, so that a benchmark can tell parallel nodes' overlap
        step = {"node": fn.__name__, "ms": round((time.perf_counter() - t0) * 1000, 3), "start": round(t0, 6)}
        # a node that resets the run (steps: None) starts the list with its own visit, so a thread's
        # next run does not list the previous run's nodes
        earlier = [RESTART] if "steps" in out and out["steps"] is None else (out.get("steps") or [])
        return {**out, "steps": [*earlier, step]}

    return wrapper
