"""Where a command runs: in the `rag serve` that holds these settings when one answers, else here.

A command turns its options into one request object (``Request``: the graph's input and the
Context knobs it sets, or a store question such as ``show``) and hands it to ``dispatch``. The
request goes whole to `rag serve` (its fields as JSON, ``cli.server_link``), which rebuilds it
with ``Request.of`` and runs it; when no server answers, the same request runs here. Either way the
command sees the same events (an answer's tokens, an ingestion's progress) and the same result, so
that it only prints. What a command opens here is closed when it ends (``close_opened``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar, Self, TextIO

from components.resilience.errors import RAGError

if TYPE_CHECKING:  # a command that `rag serve` answers loads no components here
    from components.factory import Components

#: an event of a request on its way: ``{"event": "token", "text": ...}`` or ``{"event": "progress", "data": ...}``
OnEvent = Callable[[dict[str, Any]], None]
#: a running `rag serve` for a session of several requests (``served``): (command, args) -> its result
Remote = Callable[[str, dict[str, Any]], Any]


def ignore(event: dict[str, Any]) -> None:
    return None


@dataclass(frozen=True)
class Request:
    """A command's arguments as one object: sent whole to `rag serve`, or run here by ``here``."""

    #: the `rag serve` command that answers it (``cli.serve_cmd.COMMANDS``)
    command: ClassVar[str]

    def args(self) -> dict[str, Any]:
        """What goes over the socket: every field, as JSON."""
        return asdict(self)

    @classmethod
    def of(cls, args: Mapping[str, Any]) -> Self:
        """The request ``args`` describe, in the server (JSON has turned its tuples into lists)."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in args.items() if k in names})

    def here(self, c: Components, on_event: OnEvent = ignore) -> Any:
        """The result `rag serve` would send, computed in this process."""
        raise NotImplementedError


#: what this command opened; closed when the command ends, so that the store's lock and the models
#: go with the command (a process that runs several commands, such as a test or an embedding
#: application, can run the next one on the same store)
_OPENED: list[Components] = []


def components() -> Components:
    """The components for running a command here (opened now; closed with the command)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # models come from installed packages only
    from components.factory import Components

    c = Components()
    _OPENED.append(c)
    return c


def close_opened() -> None:
    while _OPENED:
        _OPENED.pop().close()


def remote(command: str, args: dict[str, Any], *, on_event: OnEvent | None = None) -> Any | None:
    """The command's result from a running `rag serve` with these settings, or None to run it here."""
    from cli import server_link
    from components.settings import get_settings

    try:
        settings = get_settings()
    except Exception:  # invalid settings: the in-process path reports them as it always has
        return None
    return server_link.call(settings, command, args, on_event=on_event)


def dispatch(request: Request, *, on_event: OnEvent = ignore) -> Any:
    """The request's result from `rag serve` when one answers for these settings, else from this process."""
    result = remote(request.command, request.args(), on_event=on_event)
    return request.here(components(), on_event) if result is None else result


def served(command: str, args: dict[str, Any], *, on_event: OnEvent | None = None) -> Any:
    """The result of a session's later request to the `rag serve` it started with (chat, search -i)."""
    result = remote(command, args, on_event=on_event)
    if result is None:
        raise RAGError("rag serve stopped answering: leave and start again (it then runs here)")
    return result


def serving() -> bool:
    """Whether a `rag serve` answers for these settings: a session (chat, search -i) then sends it
    every request (``served``); otherwise the session runs here."""
    return remote("ping", {}) is not None


def tokens_to(sink: TextIO) -> OnEvent:
    """An ``on_event`` that writes a streamed answer's text to ``sink`` as it comes."""

    def write(event: dict[str, Any]) -> None:
        if event.get("event") == "token":
            sink.write(str(event.get("text") or ""))
            sink.flush()

    return write
