"""``rag serve``: one process that keeps the models, the store and the graphs loaded for the CLI.

A one-shot ``rag search`` spends most of its wall time loading (packages, the embedding model,
Presidio's spaCy pipelines, the store, the BM25 index) and a few milliseconds searching. This
process loads all of it once, then answers the commands that ``cli.server_link`` forwards
over a Unix socket: ``search`` (also similar and each search of ``search -i``), ``show``,
``status``, ``ask`` (also each turn of ``chat`` and ``:ask``), ``ingest`` and ``ping``.
Several commands may run at once: they share one ``Components`` (thread-safe) as `langgraph
dev` does, which is also how several terminals use one embedded store, which admits one process.

A request that fails gets its error back and nothing else changes; the server keeps serving.
It stops on Ctrl-C or SIGTERM, after ``--idle-minutes`` without a request, and removes its
socket on the way out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from cli.dispatch import ignore
from cli.server_link import MAX_REQUEST_BYTES, PROTOCOL, encode, fingerprint, listening, socket_path
from components.resilience.errors import CollectionNotFound, QueryError, RAGError

if TYPE_CHECKING:
    from components.factory import Components

log = logging.getLogger(__name__)

#: the question the server asks itself at start, so that the first real one finds everything loaded
WARM_UP_QUERY = "warm-up"
Send = Callable[[dict[str, Any]], None]
Handler = Callable[["Server", dict[str, Any], Send], Awaitable[Any]]


class Server:
    """The loaded components and graphs, and the socket that serves them."""

    def __init__(self, c: Components, *, idle_minutes: float = 0.0) -> None:
        self.c = c
        self.path = socket_path(c.settings.data_dir)
        self.fingerprint = fingerprint(c.settings)
        self.idle_seconds = idle_minutes * 60.0
        self.started = time.time()
        self.requests = 0
        self.active = 0
        self.last_request = time.monotonic()
        self.search_graph: Any = None
        self.qa_graph: Any = None
        self.stop = asyncio.Event()

    # ---------------------------------------------------------------- lifecycle
    async def run(self, *, on_ready: Callable[[Server, float], None] | None = None) -> None:
        """Load everything, listen until stopped, then remove the socket."""
        from graph.rag import build_rag_graph
        from graph.threads import open_rag_graph

        self._claim_socket()
        t0 = time.perf_counter()
        async with open_rag_graph(self.c) as qa:
            self.qa_graph = qa
            self.search_graph = build_rag_graph(self.c)
            await self._warm_up()
            # Presidio's pipelines load while the server already answers: searches never need
            # them, and a question that does waits for the load it would have waited for anyway
            personal_data = asyncio.create_task(self._load_personal_data_checks())
            server = await asyncio.start_unix_server(self._handle, path=str(self.path), limit=MAX_REQUEST_BYTES)
            try:
                os.chmod(self.path, 0o600)  # the user's own index: no other account may ask it
                loop = asyncio.get_running_loop()
                for sig in (signal.SIGTERM, signal.SIGINT):
                    with contextlib.suppress(NotImplementedError, RuntimeError):
                        loop.add_signal_handler(sig, self.stop.set)
                if on_ready is not None:
                    on_ready(self, time.perf_counter() - t0)
                async with server:
                    await self._wait_for_stop()
            finally:
                with contextlib.suppress(OSError):
                    self.path.unlink()
                await personal_data

    def _claim_socket(self) -> None:
        """Refuse to start beside a live server; remove the socket a killed one left behind."""
        if not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return
        if not listening(self.path):
            self.path.unlink()
            return
        raise RAGError(
            f"another `rag serve` already answers for DATA_DIR {self.c.settings.data_dir} (socket {self.path}); "
            "stop it first (Ctrl-C in its terminal), or give this one another DATA_DIR"
        )

    async def _warm_up(self) -> None:
        """Run one search, which loads the store, the model, the rails and BM25."""
        try:
            await self.search({"question": WARM_UP_QUERY, "top_k": 1}, ignore)
        except CollectionNotFound as e:  # nothing ingested yet: still worth serving (status, ingest)
            log.info("warm-up search skipped: %s", e)
            await asyncio.to_thread(self.c.embedder.warm_up)

    @staticmethod
    async def _load_personal_data_checks() -> None:
        """Load Presidio and every language's spaCy pipeline (a one-shot command loads only its
        question's), so that no question waits for them once they are in."""
        from guardrails.pii import preload

        started = time.perf_counter()
        try:
            await asyncio.to_thread(preload)
        except Exception:  # each question that needs them loads them again, and says why it fails
            log.exception("loading the personal-data checks failed")
        else:
            log.info("personal-data checks loaded in %.1f s", time.perf_counter() - started)

    async def _wait_for_stop(self) -> None:
        while not self.stop.is_set():
            timeout = max(1.0, min(30.0, self.idle_seconds)) if self.idle_seconds else None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop.wait(), timeout)
            idle = time.monotonic() - self.last_request
            if self.idle_seconds and not self.active and idle >= self.idle_seconds:
                log.info("no request for %.0f s: stopping", idle)
                self.stop.set()

    # ---------------------------------------------------------------- requests
    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.active += 1
        self.last_request = time.monotonic()

        def send(message: dict[str, Any]) -> None:
            if not writer.is_closing():
                writer.write(encode(message))

        try:
            request = _read_request(await reader.readline())
            if request.get("fingerprint") != self.fingerprint:
                send({"event": "mismatch", "message": "this server runs with other settings"})
                return
            command = str(request.get("command"))
            handler = COMMANDS.get(command)
            if handler is None:
                raise QueryError(f"rag serve does not know the command {command!r} (it knows {', '.join(COMMANDS)})")
            self.requests += 1
            data = await handler(self, dict(request.get("args") or {}), send)
            send({"event": "result", "data": data})
        except RAGError as e:
            send({"event": "error", "message": str(e)})
        except Exception as e:  # one broken request must not stop the others
            log.exception("request failed")
            send({"event": "error", "message": f"rag serve failed on this request: {type(e).__name__}: {e}"})
        finally:
            self.active -= 1
            self.last_request = time.monotonic()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.drain()
                writer.close()
                await writer.wait_closed()

    # each handler rebuilds the command's request (``cli.dispatch.Request``) and runs it on what is loaded
    async def search(self, args: dict[str, Any], send: Send) -> dict[str, Any]:
        from cli.search_cmd import SearchRequest

        request = SearchRequest.of(args)
        return request.report(await request.run(self.search_graph))

    async def show(self, args: dict[str, Any], send: Send) -> dict[str, Any]:
        from cli.show_cmd import ShowRequest

        return await asyncio.to_thread(ShowRequest.of(args).here, self.c)

    async def status(self, args: dict[str, Any], send: Send) -> dict[str, Any]:
        from cli.status_cmd import StatusRequest

        report = await asyncio.to_thread(StatusRequest.of(args).here, self.c)
        report["server"] = self.describe()
        return report

    async def ask(self, args: dict[str, Any], send: Send) -> dict[str, Any]:
        from cli.ask_cmd import Ask

        return await Ask.of(args).run(self.qa_graph, send)

    async def ingest(self, args: dict[str, Any], send: Send) -> dict[str, Any]:
        from cli.ingest_cmd import IngestRequest

        return await IngestRequest.of(args).run(self.c, send)

    async def ping(self, args: dict[str, Any], send: Send) -> dict[str, Any]:
        """Whether a server for these settings answers (a chat asks before its first turn)."""
        return self.describe()

    def describe(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "socket": str(self.path),
            "since": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.started)),
            "requests": self.requests,
        }


COMMANDS: dict[str, Handler] = {
    "search": Server.search,
    "show": Server.show,
    "status": Server.status,
    "ask": Server.ask,
    "ingest": Server.ingest,
    "ping": Server.ping,
}


def _read_request(line: bytes) -> dict[str, Any]:
    if not line.strip():
        raise QueryError("empty request: send one JSON object on one line")
    try:
        request = json.loads(line)
    except ValueError as e:
        raise QueryError(f"the request is not JSON ({e}): send one JSON object on one line") from e
    if not isinstance(request, dict):
        raise QueryError("the request must be a JSON object with command, args and fingerprint")
    if request.get("version") != PROTOCOL:
        raise QueryError(
            f"this rag serve speaks protocol {PROTOCOL}, the command sent {request.get('version')!r}: "
            "restart `rag serve` from the same installation as the command"
        )
    return request


def serve(c: Components, *, idle_minutes: float = 0.0, announce: Callable[[str], None] = log.warning) -> None:
    """Run the server in the foreground until Ctrl-C, SIGTERM or the idle limit."""

    def ready(server: Server, seconds: float) -> None:
        announce(
            f"rag serve: ready in {seconds:.1f} s · pid {os.getpid()} · socket {server.path} · "
            f"store {c.settings.store_location}. `rag search`, `ask`, `chat`, `similar`, `show`, `status` and "
            "`ingest` with the same settings now run here; Ctrl-C stops."
        )

    asyncio.run(Server(c, idle_minutes=idle_minutes).run(on_ready=ready))
