"""A small HTTP server that speaks Ollama's API, so tests exercise the real ollama / langchain-ollama clients.

It answers ``/api/version``, ``/api/tags``, ``/api/show``, ``/api/embed`` (deterministic vectors
derived from the text's words, so similar texts get similar vectors) and ``/api/chat``
(non-streaming JSON or streaming NDJSON, shaped like ``ollama._types.ChatResponse``). The chat
reply comes from ``Behaviour.chat_handler``; by default it echoes the last user message. The
server can be told to be slow (every request, or only chat, or between streamed tokens) or to
fail with an HTTP error for the next N requests.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from tests.fakes.http import JSONHandler, serve
from tests.fakes.self_check import payload_is_self_check

DIM = 64

ChatHandler = Callable[[dict[str, Any]], str | dict[str, Any]]


def fake_embedding(text: str, dim: int = DIM) -> list[float]:
    """Bag of hashed words, L2-normalised: texts sharing words point the same way."""
    v = np.zeros(dim)
    for word in text.lower().split():
        h = int(hashlib.md5(word.encode()).hexdigest(), 16)
        v[h % dim] += 1.0 if (h >> 8) % 2 else -1.0
    n = np.linalg.norm(v)
    return (v / n if n else v).tolist()  # type: ignore[no-any-return]


def echo_handler(payload: dict[str, Any]) -> str:
    """Default chat reply: repeats the last user message, so a test can see what the model was sent."""
    users = [m.get("content", "") for m in payload.get("messages", []) if m.get("role") == "user"]
    return f"echo: {users[-1] if users else ''}"


def split_tokens(text: str) -> list[str]:
    """Word-sized pieces that concatenate back to ``text`` (whitespace kept on the preceding token)."""
    return re.findall(r"\s*\S+\s*|\s+", text) or [""]


@dataclass
class Behaviour:
    """What the server does; tests mutate it while the server runs.

    ``chat_handler(payload)`` returns the assistant content (str) or a dict that is sent as its
    JSON text (handy when the request carries a JSON schema in ``format``).
    """

    delay: float = 0.0
    """Seconds every request waits before it is answered."""
    chat_delay: float = 0.0
    """Extra seconds ``/api/chat`` waits before the first byte (a model that is slow to start)."""
    token_delay: float = 0.0
    """Seconds between streamed chat chunks."""
    fail_next: int = 0
    """The next N requests (any endpoint) are answered with ``fail_status``."""
    fail_status: int = 500
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    chat_handler: ChatHandler | None = None
    models: list[str] = field(default_factory=lambda: ["fake-embed", "fake-chat"])
    self_check_reply: str = "No"
    """The answer to NeMo's self-check input prompt ("Yes" blocks the question)."""

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Payloads of the ``/api/chat`` requests received so far (failed ones included), self-checks apart."""
        return [p for path, p in self.requests if path == "/api/chat" and not payload_is_self_check(p)]

    @property
    def self_checks(self) -> list[dict[str, Any]]:
        """Payloads of NeMo's self-check input requests."""
        return [p for path, p in self.requests if path == "/api/chat" and payload_is_self_check(p)]


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def _handler(b: Behaviour) -> type[JSONHandler]:
    class Handler(JSONHandler):
        protocol_version = "HTTP/1.1"  # keep-alive and chunked streams, as Ollama's Go server does
        content_type = "application/json; charset=utf-8"

        def _gate(self, payload: dict[str, Any]) -> bool:
            b.requests.append((self.path, payload))
            if b.delay:
                time.sleep(b.delay)
            if b.fail_next > 0:
                b.fail_next -= 1
                self.send_json(b.fail_status, {"error": "simulated server error"})
                return False
            return True

        def do_GET(self) -> None:
            if not self._gate({}):
                return
            if self.path == "/api/version":
                self.send_json(200, {"version": "0.12.0-fake"})
            elif self.path == "/api/tags":
                self.send_json(200, {"models": [_model_entry(m) for m in b.models]})
            else:
                self.send_json(404, {"error": "not found"})

        def do_POST(self) -> None:
            payload = self.read_json()
            if not self._gate(payload):
                return
            if self.path == "/api/embed":
                inputs = payload.get("input")
                texts = [inputs] if isinstance(inputs, str) else list(inputs or [])
                self.send_json(200, {"model": payload.get("model"), "embeddings": [fake_embedding(t) for t in texts]})
            elif self.path == "/api/show":
                self.send_json(
                    200,
                    {
                        "modelfile": "",
                        "parameters": "",
                        "template": "{{ .Prompt }}",
                        "details": {"family": "fake", "format": "gguf", "parameter_size": "1B"},
                        "model_info": {},
                        "capabilities": ["completion"],
                    },
                )
            elif self.path == "/api/chat":
                self._chat(payload)
            else:
                self.send_json(404, {"error": f"model or endpoint not found: {self.path}"})

        def _chat(self, payload: dict[str, Any]) -> None:
            model = payload.get("model") or ""
            if model not in b.models:
                self.send_json(404, {"error": f"model '{model}' not found"})
                return
            if b.chat_delay:
                time.sleep(b.chat_delay)
            reply = b.self_check_reply if payload_is_self_check(payload) else (b.chat_handler or echo_handler)(payload)
            content = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
            tokens = split_tokens(content)
            counts = {
                "total_duration": 1_000_000,
                "load_duration": 1_000,
                "prompt_eval_count": sum(len(str(m.get("content", "")).split()) for m in payload.get("messages", [])),
                "prompt_eval_duration": 1_000,
                "eval_count": len(tokens),
                "eval_duration": 1_000,
            }
            if not payload.get("stream", True):
                message = {"role": "assistant", "content": content}
                self.send_json(200, {"model": model, "created_at": _now(), "message": message, "done": True,
                                 "done_reason": "stop", **counts})  # fmt: skip
                return
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/x-ndjson")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for tok in tokens:
                    line = {"model": model, "created_at": _now(), "message": {"role": "assistant", "content": tok},
                            "done": False}  # fmt: skip
                    self.write_chunk((json.dumps(line, ensure_ascii=False) + "\n").encode())
                    if b.token_delay:
                        time.sleep(b.token_delay)
                final = {"model": model, "created_at": _now(), "message": {"role": "assistant", "content": ""},
                         "done": True, "done_reason": "stop", **counts}  # fmt: skip
                self.write_chunk((json.dumps(final) + "\n").encode())
                self.write_chunk(b"")  # end of the chunked body
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


def _model_entry(name: str) -> dict[str, Any]:
    """One ``/api/tags`` entry shaped like ``ollama._types.ListResponse.Model``."""
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-01-01T00:00:00Z",
        "size": 1_000_000,
        "digest": hashlib.sha256(name.encode()).hexdigest(),
        "details": {"format": "gguf", "family": "fake", "parameter_size": "1B", "quantization_level": "Q4_0"},
    }


@contextmanager
def ollama_server(behaviour: Behaviour | None = None) -> Iterator[tuple[str, Behaviour]]:
    """Start the server on a free loopback port; yields (base_url, behaviour)."""
    b = behaviour or Behaviour()
    with serve(_handler(b)) as url:
        yield url, b
