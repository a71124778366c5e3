"""How a one-shot `rag` command reaches a running `rag serve`, and what they say to each other.

A one-shot command spends seconds loading what a query needs (Python packages, the embedding
model, Presidio's spaCy pipelines, the store) and milliseconds answering. `rag serve` keeps all
of that loaded; `rag search`, `rag similar`, `rag show`, `rag status` and `rag ask` first try its
socket and, when nothing answers there, run in-process as before. This module is the client side
and the protocol; it imports nothing heavy, so a forwarded command costs a Python start-up.

- **Where**: a Unix socket named after ``DATA_DIR`` (``DATA_DIR/serve.sock``, or a short path
  under the temp folder when that would pass the 107-byte limit of socket paths). A command
  looks where its own ``DATA_DIR`` says, so a server only ever answers for its own data.
- **Same settings or nothing**: every request carries a fingerprint of the caller's settings
  (``Settings``, paths resolved, secrets hashed with the rest). A server started with other
  settings (another store, another LLM) answers "mismatch" and the command runs in-process, so
  a command never silently runs under settings its user did not give it.
- **Protocol**: one JSON request line (``command``, ``args``, ``fingerprint``, ``version``), then
  JSON lines back: ``{"event": "token", "text": …}`` while an answer streams,
  ``{"event": "progress", "data": …}`` while an ingestion runs, and one final
  ``{"event": "result", "data": …}``, ``{"event": "error", "message": …}`` or
  ``{"event": "mismatch"}`` (other settings: run it here).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from components.resilience.errors import RAGError

if TYPE_CHECKING:
    from components.settings import Settings

#: the shape of what commands send; a server of another installation refuses another version
PROTOCOL = 2
SOCKET_NAME = "serve.sock"
#: sun_path holds 108 bytes with the terminating NUL
MAX_SOCKET_PATH = 107
#: a request line: the question, filters and options (a batch file never goes over the socket)
MAX_REQUEST_BYTES = 1 << 20
#: seconds a command waits to connect: a live server accepts at once, a dead socket refuses at once
CONNECT_TIMEOUT_S = 1.0
#: env var: ``off`` runs every command in its own process; ``auto`` starts `rag serve` when none
#: runs (it stops after ``AUTO_IDLE_MINUTES`` without a request); anything else uses a running one
SWITCH = "RAG_SERVER"
AUTO_IDLE_MINUTES = 15
#: seconds a command waits for the server it started to load (a 12.5k-chunk store takes ~12 s)
AUTO_START_TIMEOUT_S = 180.0


class ServerError(RAGError):
    """`rag serve` answered the request with an error (the message is the server's, for the user)."""


class ServerGone(RAGError):
    """The connection to `rag serve` broke before its answer was complete."""


def socket_path(data_dir: Path) -> Path:
    """The socket a server for ``data_dir`` listens on (the same for client and server)."""
    folder = data_dir.expanduser().resolve()
    path = folder / SOCKET_NAME
    if len(os.fsencode(path)) <= MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(folder)).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"rag-{os.getuid()}-{digest}.sock"


def fingerprint(settings: Settings) -> str:
    """A hash of every setting, with paths made absolute (a relative DATA_DIR depends on the cwd)."""
    values: dict[str, Any] = {}
    for name in sorted(type(settings).model_fields):
        value = getattr(settings, name)
        if isinstance(value, Path):
            value = str(value.expanduser().resolve())
        elif hasattr(value, "get_secret_value"):
            value = value.get_secret_value()
        values[name] = value
    blob = json.dumps(values, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()


def mode() -> str:
    """``off``, ``auto`` or ``on`` (use a server when one runs), from ``RAG_SERVER``."""
    value = os.environ.get(SWITCH, "").strip().lower()
    if value in {"off", "0", "no", "false"}:
        return "off"
    return "auto" if value == "auto" else "on"


def enabled() -> bool:
    """False when ``RAG_SERVER=off`` asks this command to run in-process."""
    return mode() != "off"


def start_server(settings: Settings, path: Path) -> bool:
    """Start `rag serve` in the background for these settings and wait until it listens.

    Its output goes to ``DATA_DIR/serve.log``. False when it ended before listening (the store
    is held by another process, say): the command then runs in-process and reports why.
    """
    import subprocess
    import sys
    import time

    log_path = settings.data_dir.expanduser() / "serve.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "serve", "--idle-minutes", str(AUTO_IDLE_MINUTES)],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            start_new_session=True,  # outlives this command and its terminal's Ctrl-C
        )
    deadline = time.monotonic() + AUTO_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if listening(path):
            return True
        time.sleep(0.1)
    return False


def _connect(path: Path) -> socket.socket | None:
    """A connection to the server on ``path``, or None when no socket file or nobody listens
    (a socket file left by a server that was killed)."""
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(CONNECT_TIMEOUT_S)
    try:
        sock.connect(str(path))
    except OSError:
        sock.close()
        return None
    sock.settimeout(None)  # the answer takes what the query takes
    return sock


def listening(path: Path) -> bool:
    """True when something accepts connections on the socket ``path``."""
    sock = _connect(path)
    if sock is None:
        return False
    sock.close()
    return True


def encode(message: Mapping[str, Any]) -> bytes:
    """One protocol line (values JSON cannot hold, such as dates, become strings)."""
    return json.dumps(message, ensure_ascii=False, default=str).encode() + b"\n"


def call(
    settings: Settings,
    command: str,
    args: Mapping[str, Any],
    *,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> Any | None:
    """The server's result for ``command``, or None when no server for these settings answers.

    None means "run it here": no socket, nobody listening, forwarding switched off, or a server
    started with other settings. ``ServerError`` carries the server's error for the user;
    ``ServerGone`` says the server went away mid-request (not retried here: an ask is not
    idempotent, its thread may already hold the turn).
    """
    if not enabled():
        return None
    path = socket_path(settings.data_dir)
    sock = _connect(path)
    if sock is None and mode() == "auto" and start_server(settings, path):
        sock = _connect(path)
    if sock is None:
        return None
    request = {"version": PROTOCOL, "command": command, "args": dict(args), "fingerprint": fingerprint(settings)}
    with sock, sock.makefile("rb") as replies:
        sock.sendall(encode(request))
        for event in _events(replies):
            kind = event.get("event")
            if kind == "result":
                return event.get("data")
            elif kind == "mismatch":
                return None
            elif kind == "error":
                raise ServerError(str(event.get("message") or "rag serve could not answer"))
            elif on_event is not None:  # tokens of a streamed answer, an ingestion's progress
                on_event(event)
    raise ServerGone(
        f"rag serve (socket {path}) closed the connection before answering; "
        "its terminal or log says why. Run the command again (it runs here when no server answers)."
    )


def _events(replies: Any) -> Iterator[dict[str, Any]]:
    for line in replies:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event
