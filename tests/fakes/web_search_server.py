"""A small HTTP server that speaks Tavily's search API, so tests exercise the real httpx client.

``POST /search`` checks the bearer key (HTTP 401 with Tavily's error body when it is wrong),
records the request, and answers with Tavily's response shape (``query``, ``answer``,
``images``, ``results`` of ``title``/``url``/``content``/``score``/``raw_content``,
``response_time``). It can be told to be slow or to fail with a given status.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.http import JSONHandler, serve

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


def _handler(b: Behaviour) -> type[JSONHandler]:
    class Handler(JSONHandler):
        def do_POST(self) -> None:
            payload = self.read_json()
            b.requests.append((self.path, dict(self.headers.items()), payload))
            if b.delay:
                time.sleep(b.delay)
            if self.path != "/search":
                self.send_json(404, {"detail": {"error": "Not Found"}})
                return
            if self.headers.get("Authorization") != f"Bearer {b.api_key}":
                self.send_json(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
                return
            if b.status != 200:
                self.send_json(b.status, {"detail": {"error": "Internal Server Error"}})
                return
            k = int(payload.get("max_results", 5))
            self.send_json(
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
    with serve(_handler(b)) as url:
        yield url, b
