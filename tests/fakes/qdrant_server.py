"""A small HTTP server that speaks the part of Qdrant's REST API a collection's creation uses.

It records every request (method, path, headers, JSON body) so tests can check what the real
``qdrant-client`` sends to a server: the API key header, the shard and replication numbers and
the payload indexes of a new collection. ``GET /`` answers with a version (the client's
compatibility check), ``GET /collections/{name}/exists`` with the collections created so far,
``PUT /collections/{name}`` creates one, ``PUT /collections/{name}/index`` acknowledges a payload
index. A wrong API key gets Qdrant's 401; ``delay`` makes every request slow.
"""

from __future__ import annotations

import importlib.metadata
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.http import JSONHandler, serve

API_KEY = "qdrant-test-key"
#: the installed client's version, so its compatibility check passes quietly
VERSION = importlib.metadata.version("qdrant-client")


@dataclass
class Behaviour:
    api_key: str = API_KEY
    delay: float = 0.0
    collections: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[tuple[str, str, dict[str, str], dict[str, Any]]] = field(default_factory=list)

    def bodies(self, method: str, pattern: str) -> list[dict[str, Any]]:
        """JSON bodies of the ``method`` requests whose path matches ``pattern`` (a regex)."""
        return [body for m, path, _, body in self.requests if m == method and re.fullmatch(pattern, path)]


def _ok(result: Any) -> dict[str, Any]:
    return {"result": result, "status": "ok", "time": 0.0001}


def _handler(b: Behaviour) -> type[JSONHandler]:
    class Handler(JSONHandler):
        def _serve(self, method: str) -> None:
            body = self.read_json() if method in {"PUT", "POST"} else {}
            path = self.path.split("?")[0]
            b.requests.append((method, path, dict(self.headers.items()), body))
            if b.delay:
                time.sleep(b.delay)
            if path == "/" and method == "GET":
                self.send_json(200, {"title": "qdrant - vector search engine", "version": VERSION})
                return
            if self.headers.get("api-key") != b.api_key:
                self.send_json(401, {"status": {"error": "Must provide an API key or an Authorization bearer token"}})
                return
            m = re.fullmatch(r"/collections/([\w-]+)(/exists|/index)?", path)
            if m is None:
                self.send_json(404, {"status": {"error": f"Not found: {path}"}})
                return
            name, tail = m.group(1), m.group(2) or ""
            if tail == "/exists" and method == "GET":
                self.send_json(200, _ok({"exists": name in b.collections}))
            elif tail == "" and method == "PUT":
                b.collections[name] = body
                self.send_json(200, _ok(True))
            elif tail == "/index" and method == "PUT":
                self.send_json(200, _ok({"operation_id": len(b.requests), "status": "completed"}))
            else:
                self.send_json(404, {"status": {"error": f"{method} {path} is not served by this fake"}})

        def do_GET(self) -> None:
            self._serve("GET")

        def do_PUT(self) -> None:
            self._serve("PUT")

        def do_POST(self) -> None:
            self._serve("POST")

    return Handler


@contextmanager
def qdrant_server(behaviour: Behaviour | None = None) -> Iterator[tuple[str, Behaviour]]:
    """Start the server on a free loopback port; yields (base_url, behaviour)."""
    b = behaviour or Behaviour()
    with serve(_handler(b)) as url:
        yield url, b
