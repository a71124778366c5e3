"""What the fake servers share: a JSON request handler and a loopback server that dies cleanly.

The fakes (Ollama, OpenAI-compatible, Tavily) differ in their routes and reply shapes only.
Stopping a server must look like a dead service to the real clients under test, including
those holding a keep-alive connection, so ``serve`` closes the open connections on the way out.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar


class JSONHandler(BaseHTTPRequestHandler):
    """A request handler that reads and writes JSON bodies and keeps test output clean."""

    content_type = "application/json"
    #: set by ``serve`` for each server, so that stopping it can close what clients hold open
    open_connections: ClassVar[set[socket.socket]] = set()

    def setup(self) -> None:
        super().setup()
        self.open_connections.add(self.connection)

    def finish(self) -> None:
        self.open_connections.discard(self.connection)
        super().finish()

    def log_message(self, *args: Any) -> None:
        pass

    def read_json(self) -> dict[str, Any]:
        """The request body as a dict (``{}`` when there is none)."""
        length = int(self.headers.get("Content-Length") or 0)
        body: dict[str, Any] = json.loads(self.rfile.read(length) or b"{}")
        return body

    def send_json(self, code: int, body: dict[str, Any]) -> None:
        """Answer with ``body``; a client that already gave up (a timeout test) gets nothing."""
        data = json.dumps(body).encode()
        try:
            self.send_response(code)
            self.send_header("Content-Type", self.content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def write_chunk(self, data: bytes) -> None:
        """One chunk of a ``Transfer-Encoding: chunked`` body; ``b""`` ends the body."""
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


@contextmanager
def serve(handler: type[JSONHandler], path: str = "") -> Iterator[str]:
    """Run ``handler`` on a free loopback port; yields the base URL (``http://127.0.0.1:port`` + path)."""
    connections: set[socket.socket] = set()
    bound = type(handler.__name__, (handler,), {"open_connections": connections})
    server = ThreadingHTTPServer(("127.0.0.1", 0), bound)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{path}"
    finally:
        server.shutdown()
        server.server_close()
        for conn in list(connections):
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
