"""A small HTTP server that speaks Tavily's search API, so tests exercise the real httpx client.

``POST /search`` checks the bearer key (HTTP 401 with Tavily's error body when it is wrong),
records the request, and answers with Tavily's response shape (``query``, ``answer``,
``images``, ``results`` of ``title``/``url``/``content``/``score``/``raw_content``,
``response_time``). It can be told to be slow or to fail with a given status.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

API_KEY = "tvly-test-key"


def result(title: str, url: str, content: str, score: float) -> dict[str, Any]:
    """One result as Tavily returns it."""
    return {"title": title, "url": url, "content": content, "score": score, "raw_content": None}


@dataclass
class Behaviour:
    results: list[dict[str, Any]] = field(default_factory=list)
    delay: float = 0.0
    #: answer every request with this status and a Tavily-style error body
    status: int = 200
    api_key: str = API_KEY
    requests: list[tuple[str, dict[str, str], dict[str, Any]]] = field(default_factory=list)


def _handler(b: Behaviour) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            pass

        def _send(self, code: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up (timeouts)
                self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length) or b"{}")
            b.requests.append((self.path, dict(self.headers.items()), payload))
            if b.delay:
                time.sleep(b.delay)
            if self.path != "/search":
                self._send(404, {"detail": {"error": "Not Found"}})
                return
            if self.headers.get("Authorization") != f"Bearer {b.api_key}":
                self._send(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
                return
            if b.status != 200:
                self._send(b.status, {"detail": {"error": "Internal Server Error"}})
                return
            k = int(payload.get("max_results", 5))
            self._send(
                200,
                {
                    "query": payload.get("query"),
                    "follow_up_questions": None,
                    "answer": None,
                    "images": [],
                    "results": b.results[:k],
                    "response_time": 0.42,
                },
            )

    return Handler


@contextmanager
def web_search_server(behaviour: Behaviour | None = None) -> Iterator[tuple[str, Behaviour]]:
    """Start the server on a free loopback port; yields (base_url, behaviour)."""
    b = behaviour or Behaviour()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(b))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", b
    finally:
        server.shutdown()
        server.server_close()
