"""The error handlers of the query graph's nodes, all made by one factory.

A node that calls an external service declares how the run goes on when the call fails, as a
:class:`Fallback`: the node to go to, the state update that lets the run continue (empty hits
and a note for the user, a fallback reason), the kind of failure for the log line, and the
breaker that counts the node's timeouts. ``graph/rag.py`` passes ``fallback.handler(c)`` as the
node's ``error_handler=``, so every handler logs, counts and continues the same way.

Why timeouts are counted here: LangGraph's node ``timeout=`` cancels the node, and inside the
node's breaker guard a cancellation by timeout looks the same as a client that went away, so
the guard gives no verdict. The handler receives ``NodeTimeoutError`` and counts it against the
service's breaker; the other failures were already counted by the guard, and an open breaker's
``CircuitOpen`` says nothing new.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langgraph.errors import NodeError, NodeTimeoutError
from langgraph.types import Command

from components.resilience.errors import CircuitOpen, ServiceUnavailable
from graph.state import Asker
from nodes.rag.common import log_error

if TYPE_CHECKING:
    from components.factory import Components

ErrorHandler = Callable[..., Command[Any]]
"""Called as ``(state, error: NodeError)``: LangGraph passes the error by the parameter's name, and
its ``add_node`` overloads list no signature with one, so the type leaves the parameters open."""
Update = Callable[[str], dict[str, Any]]
"""The state update that continues the run, from ``describe(error)`` ("timed out", ...)."""


def describe(exc: BaseException) -> str:
    """What went wrong, in words a user reads in a warning: no class names, no internals (the log
    line has those, with the request id)."""
    if isinstance(exc, (NodeTimeoutError, TimeoutError)):
        return "timed out"
    if isinstance(exc, CircuitOpen):
        return "paused after repeated failures"
    if isinstance(exc, (ServiceUnavailable, ConnectionError)):
        return "unreachable"
    return "an error; details in the log"


@dataclass(frozen=True, slots=True)
class Fallback:
    """How a node's failure continues the run.

    ``goto``: the node the run goes on with. ``update(why)``: the state update, given the
    error in words (``describe``: the user never reads a class name or a stack trace). ``breaker``: the
    service whose breaker counts the node's timeouts (None for work that calls no service).
    ``kind``: the log line's kind (default: the breaker's name). ``reraise``: errors that must
    fail the run instead (a query the user has to fix).
    """

    goto: str
    update: Update
    breaker: str | None = None
    kind: str = ""
    reraise: tuple[type[Exception], ...] = ()

    def handler(self, c: Components) -> ErrorHandler:
        """The ``error_handler=`` for ``add_node``, bound to the components' breakers."""
        kind = self.kind or self.breaker or "node"

        def on_error(state: Asker, error: NodeError) -> Command[Any]:
            exc = error.error
            if isinstance(exc, self.reraise):
                raise exc
            if self.breaker is not None and isinstance(exc, NodeTimeoutError):
                c.breakers.record_failure(self.breaker, exc)
            log_error(kind, error.node, state, exc)
            return Command(goto=self.goto, update=self.update(describe(exc)))

        on_error.__name__ = f"{kind}_failed"
        return on_error


__all__ = ["ErrorHandler", "Fallback", "describe"]
