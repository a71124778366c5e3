"""A small HTTP server that speaks Ollama's API, so tests exercise the real langchain-ollama client.

It answers ``/api/version``, ``/api/tags``, ``/api/show`` and ``/api/embed`` (deterministic
vectors derived from the text's words, so similar texts get similar vectors), and can be told
to be slow or to fail with HTTP 500 for the next N requests. Chat endpoints are added by the
tests that need them through ``chat_handler``.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

DIM = 64


def fake_embedding(text: str, dim: int = DIM) -> list[float]:
    """Bag of hashed words, L2-normalised: texts sharing words point the same way."""
    v = np.zeros(dim)
    for word in text.lower().split():
        h = int(hashlib.md5(word.encode()).hexdigest(), 16)
        v[h % dim] += 1.0 if (h >> 8) % 2 else -1.0
    n = np.linalg.norm(v)
    return (v / n if n else v).tolist()  # type: ignore[no-any-return]


@dataclass
class Behaviour:
    delay: float = 0.0
    fail_next: int = 0
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    chat_handler: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    models: list[str] = field(default_factory=lambda: ["fake-embed", "fake-chat"])


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
            self.wfile.write(data)

        def _gate(self, payload: dict[str, Any]) -> bool:
            b.requests.append((self.path, payload))
            if b.delay:
                time.sleep(b.delay)
            if b.fail_next > 0:
                b.fail_next -= 1
                self._send(500, {"error": "simulated server error"})
                return False
            return True

        def do_GET(self) -> None:
            if not self._gate({}):
                return
            if self.path == "/api/version":
                self._send(200, {"version": "0.12.0-fake"})
            elif self.path == "/api/tags":
                self._send(200, {"models": [{"name": m, "model": m} for m in b.models]})
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length) or b"{}")
            if not self._gate(payload):
                return
            if self.path == "/api/embed":
                inputs = payload.get("input")
                texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
                self._send(200, {"model": payload.get("model"), "embeddings": [fake_embedding(t) for t in texts]})
            elif self.path == "/api/show":
                self._send(200, {"modelfile": "", "details": {"family": "fake"}, "capabilities": ["completion"]})
            elif self.path == "/api/chat" and b.chat_handler is not None:
                self._send(200, b.chat_handler(payload))
            else:
                self._send(404, {"error": f"model or endpoint not found: {self.path}"})

    return Handler


@contextmanager
def ollama_server(behaviour: Behaviour | None = None) -> Iterator[tuple[str, Behaviour]]:
    """Start the server on a free loopback port; yields (base_url, behaviour)."""
    b = behaviour or Behaviour()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(b))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", b
    finally:
        server.shutdown()
        server.server_close()
