"""A small HTTP server that speaks the OpenAI chat-completions API, as llama.cpp, vLLM and LM Studio do.

Tests drive the real langchain-openai / openai clients against it. It answers ``GET /v1/models``
and ``POST /v1/chat/completions`` (a JSON reply, or server-sent events when ``stream`` is true,
shaped like the OpenAI API's). The reply comes from ``Behaviour.chat_handler``; by default it
echoes the last user message. The server can require an API key, be slow before answering, or
fail the next N requests with an HTTP error in OpenAI's error shape.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.http import JSONHandler, serve
from tests.fakes.ollama_server import echo_handler, split_tokens
from tests.fakes.self_check import payload_is_self_check

ChatHandler = Callable[[dict[str, Any]], str | dict[str, Any]]


@dataclass
class Behaviour:
    """What the server does; tests change it while the server runs.

    ``chat_handler(payload)`` returns the assistant content (str) or a dict sent as its JSON text
    (what a structured call with ``response_format`` expects).
    """

    api_key: str | None = None
    """When set, requests without ``Authorization: Bearer <api_key>`` get HTTP 401."""
    chat_delay: float = 0.0
    """Seconds a chat completion waits before its first byte."""
    fail_next: int = 0
    """The next N requests are answered with ``fail_status``."""
    fail_status: int = 500
    requests: list[tuple[str, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    """(path, JSON body, headers with lower-case names) of every request, failed ones included."""
    chat_handler: ChatHandler | None = None
    models: list[str] = field(default_factory=lambda: ["fake-chat"])
    self_check_reply: str = "No"
    """The answer to NeMo's self-check input prompt ("Yes" blocks the question)."""

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Payloads of the chat-completion requests received so far (failed ones included), self-checks apart."""
        return [
            p for path, p, _ in self.requests if path.endswith("/chat/completions") and not payload_is_self_check(p)
        ]

    @property
    def self_checks(self) -> list[dict[str, Any]]:
        """Payloads of NeMo's self-check input requests."""
        return [p for path, p, _ in self.requests if path.endswith("/chat/completions") and payload_is_self_check(p)]


def _handler(b: Behaviour) -> type[JSONHandler]:
    class Handler(JSONHandler):
        protocol_version = "HTTP/1.1"

        def _error(self, code: int, message: str, kind: str) -> None:
            self.send_json(code, {"error": {"message": message, "type": kind, "param": None, "code": None}})

        def _gate(self, payload: dict[str, Any]) -> bool:
            b.requests.append((self.path, payload, {k.lower(): v for k, v in self.headers.items()}))
            if b.api_key is not None and self.headers.get("Authorization") != f"Bearer {b.api_key}":
                self._error(401, "Incorrect API key provided.", "invalid_request_error")
                return False
            if b.fail_next > 0:
                b.fail_next -= 1
                self._error(b.fail_status, "simulated server error", "server_error")
                return False
            return True

        def do_GET(self) -> None:
            if not self._gate({}):
                return
            if self.path == "/v1/models":
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in b.models]
                self.send_json(200, {"object": "list", "data": data})
            else:
                self._error(404, f"no route {self.path}", "not_found_error")

        def do_POST(self) -> None:
            payload = self.read_json()
            if not self._gate(payload):
                return
            if self.path != "/v1/chat/completions":
                self._error(404, f"no route {self.path}", "not_found_error")
                return
            model = payload.get("model") or ""
            if model not in b.models:
                self._error(404, f"The model `{model}` does not exist.", "not_found_error")
                return
            if b.chat_delay:
                time.sleep(b.chat_delay)
            reply = b.self_check_reply if payload_is_self_check(payload) else (b.chat_handler or echo_handler)(payload)
            content = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
            if payload.get("stream"):
                self._stream(model, content)
            else:
                self.send_json(200, _completion(model, content))

        def _stream(self, model: str, content: str) -> None:
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self._event(_chunk(model, {"role": "assistant", "content": ""}, None))
                for tok in split_tokens(content):
                    self._event(_chunk(model, {"content": tok}, None))
                self._event(_chunk(model, {}, "stop"))
                self.write_chunk(b"data: [DONE]\n\n")
                self.write_chunk(b"")  # end of the chunked body
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _event(self, body: dict[str, Any]) -> None:
            self.write_chunk(f"data: {json.dumps(body, ensure_ascii=False)}\n\n".encode())

    return Handler


def _completion(model: str, content: str) -> dict[str, Any]:
    message = {"role": "assistant", "content": content}
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
        "usage": {"prompt_tokens": 10, "completion_tokens": len(split_tokens(content)), "total_tokens": 20},
    }


def _chunk(model: str, delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }


@contextmanager
def openai_server(behaviour: Behaviour | None = None) -> Iterator[tuple[str, Behaviour]]:
    """Start the server on a free loopback port; yields (base_url ending in /v1, behaviour)."""
    b = behaviour or Behaviour()
    with serve(_handler(b), "/v1") as url:
        yield url, b
