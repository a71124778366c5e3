"""Fewer LangGraph steps per run: routers applied at the end of their node, and node pairs chained.

Each LangGraph step costs about 1 ms of the framework's own work on a 2-core machine with this
state (task preparation, config merging, applying writes), whatever the node does, so with one
node per step a Q&A run's 17 tasks would spend ~17 ms on orchestration alone, beyond its 15 ms
budget (docs/decisions/0007-routers-as-commands.md).

Routers: as ``Command(goto=...)`` from their node instead of as conditional edges.
The routers stay pure functions of state in ``graph/routes.py`` (no model calls, testable
alone); only where they run changes. A conditional edge makes LangGraph copy every channel of
the state and replay the node's writes to give the router a fresh view: about 0.55 ms per edge
on a 2-core machine with this 46-key state, and a Q&A run crosses eight of them. Here the router
reads the state with the node's own update applied (through the same reducers LangGraph uses),
which costs microseconds, and the node returns the decision as a Command. Studio still draws
every exit: ``destinations`` lists the router's ``Literal`` return values.

Chains (``chained``): two nodes that always run one after the other on a path (``rewrite_query``
then ``prepare_search``; ``guard_output`` then ``finish_run``) run in one step, the second seeing
the state with the first's update applied, exactly as in a step of its own. Both stay nodes of
their own for the other paths that reach them (search mode enters at ``prepare_search``; blocked,
cached and search runs end at ``finish_run``), and both still record their visit in ``steps``.
"""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Mapping
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from langgraph.runtime import Runtime
from langgraph.types import Command

from components.resilience.errors import QueryError, for_the_caller
from graph.context import Context
from graph.state import RESTART, RAGState

Router = Callable[..., str]


def _reducers(schema: type) -> dict[str, Callable[[Any, Any], Any]]:
    """State keys declared ``Annotated[T, reducer]`` and their reducers."""
    out: dict[str, Callable[[Any, Any], Any]] = {}
    for key, hint in get_type_hints(schema, include_extras=True).items():
        if get_origin(hint) is Annotated:
            reducer = next((m for m in hint.__metadata__ if callable(m)), None)
            if reducer is not None:
                out[key] = reducer
    return out


REDUCERS = _reducers(RAGState)


def destinations(router: Router) -> tuple[str, ...]:
    """The node names a router may return, read from its ``Literal[...]`` return annotation."""
    names = get_args(get_type_hints(router)["return"])
    if not names or not all(isinstance(n, str) for n in names):
        raise TypeError(f"router {router.__name__} must be annotated to return Literal[node names]")
    return names


def merge_updates(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """``second`` applied onto ``first`` through the declared reducers (reducer keys combined, others
    replaced): the state after an update, or one update equal to two in a row."""
    out = dict(first)
    for key, value in second.items():
        reducer = REDUCERS.get(key)
        out[key] = reducer(out[key], value) if reducer is not None and out.get(key) is not None else value
    return out


def state_after(state: RAGState, update: dict[str, Any]) -> dict[str, Any]:
    """The state as the next step will see it: ``update`` applied through the declared reducers."""
    return merge_updates(state, update)


def routed(node: Any, router: Router) -> Any:
    """Wrap ``node`` so that it returns ``Command(goto=router(state after node), update=node's update)``."""
    takes_runtime = len(inspect.signature(router).parameters) > 1
    allowed = destinations(router)

    @functools.wraps(node)
    async def wrapper(state: RAGState, runtime: Runtime[Context]) -> Command[Any]:
        update = await node(state, runtime=runtime)
        view = state_after(state, update)
        goto = router(view, runtime) if takes_runtime else router(view)
        if goto not in allowed:  # a router bug must not send the run somewhere undeclared
            raise ValueError(f"{router.__name__} returned {goto!r}, not one of {allowed}")
        return Command(goto=goto, update=update)

    return wrapper


def chained(first: Any, second: Any) -> Any:
    """One node running ``first`` then ``second`` in a single step (see module doc); named after ``first``."""

    @functools.wraps(first)
    async def wrapper(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        update = await first(state, runtime=runtime)
        return merge_updates(update, await second(state_after(state, update), runtime=runtime))

    return wrapper


def timed(fn: Any) -> Any:
    """Wrap a node so that each visit is recorded in ``steps`` with its milliseconds."""

    @functools.wraps(fn)
    async def wrapper(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
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
