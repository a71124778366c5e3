"""Which client exceptions mean a service could not be reached, judged by exception type.

Every client library says "the network failed" with its own classes: httpx, requests,
qdrant-client (which wraps httpx), the openai SDK, gRPC, and the builtins that ollama raises.
:func:`network_failure` maps them, with ``isinstance`` against the real classes, to three
answers a caller can act on:

* ``unreachable``: no connection was made (refused, DNS, connect timeout). The service is down
  or the URL is wrong; retrying at once does not help.
* ``timeout``: connected, but no answer in time. A retry may succeed.
* ``broken``: the connection failed in the middle of the exchange. A retry may succeed.

Optional libraries are never imported here: their classes are looked up in ``sys.modules``.
An exception of a library that was never imported cannot have been raised, so a module that is
not loaded contributes no classes, and a process that never used gRPC does not pay for
importing it on its error path.
"""

from __future__ import annotations

import errno
import socket
import sys
from typing import Any, Literal

NetworkFailure = Literal["unreachable", "timeout", "broken"]

_UNREACHABLE_ERRNOS = frozenset({errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN})
"""``OSError`` also covers files; only these errors of a socket say the host cannot be reached."""


def _loaded(module: str, *names: str) -> tuple[type[BaseException], ...]:
    """The exception classes ``names`` of ``module``, or none when the module was never imported."""
    mod: Any = sys.modules.get(module)
    if mod is None:
        return ()
    return tuple(cls for name in names if isinstance(cls := getattr(mod, name, None), type))


def _grpc_code(exc: BaseException) -> str | None:
    rpc_error = _loaded("grpc", "RpcError")
    if not rpc_error or not isinstance(exc, rpc_error):
        return None
    code = getattr(exc, "code", None)  # grpc.Call.code(); a bare RpcError has none
    status = code() if callable(code) else None
    return getattr(status, "name", None)


def _rules() -> tuple[tuple[tuple[type[BaseException], ...], NetworkFailure], ...]:
    """(exception classes, answer), first match wins: a class comes before the broader ones it belongs to."""
    return (
        (
            (
                # also an httpx timeout, but no connection was made
                *_loaded("httpx", "ConnectError", "ConnectTimeout"),
                ConnectionError,  # builtins: refused, reset, aborted; ollama raises it when it cannot connect
                socket.gaierror,  # the host name does not resolve
                *_loaded("requests.exceptions", "ConnectionError"),  # ConnectTimeout included
            ),
            "unreachable",
        ),
        (
            (
                *_loaded("httpx", "TimeoutException"),
                TimeoutError,
                *_loaded("requests.exceptions", "Timeout"),
                *_loaded("openai", "APITimeoutError"),  # a subclass of its APIConnectionError
            ),
            "timeout",
        ),
        (_loaded("openai", "APIConnectionError"), "unreachable"),
        (
            (
                *_loaded("httpx", "NetworkError", "RemoteProtocolError"),
                *_loaded("requests.exceptions", "ChunkedEncodingError"),
            ),
            "broken",
        ),
    )


def network_failure(exc: BaseException) -> NetworkFailure | None:
    """``unreachable``, ``timeout`` or ``broken`` when ``exc`` is a network failure; None for anything else."""
    wrapper = _loaded("qdrant_client.http.exceptions", "ResponseHandlingException")
    if wrapper and isinstance(exc, wrapper):  # qdrant-client wraps whatever its HTTP send raised
        source = getattr(exc, "source", None)
        return network_failure(source) if isinstance(source, BaseException) else None
    grpc_code = _grpc_code(exc)
    if grpc_code == "UNAVAILABLE":
        return "unreachable"
    if grpc_code == "DEADLINE_EXCEEDED":
        return "timeout"
    for classes, answer in _rules():
        if classes and isinstance(exc, classes):
            return answer
    if isinstance(exc, OSError) and exc.errno in _UNREACHABLE_ERRNOS:
        return "unreachable"
    return None


def http_status(exc: BaseException) -> int | None:
    """The HTTP status a client exception carries (ollama, openai, httpx, qdrant-client, requests); None otherwise."""
    ollama_error = _loaded("ollama", "ResponseError")
    if ollama_error and isinstance(exc, ollama_error):
        return int(getattr(exc, "status_code", -1))
    openai_status = _loaded("openai", "APIStatusError")
    if openai_status and isinstance(exc, openai_status):
        return int(getattr(exc, "status_code", -1))
    httpx_status = _loaded("httpx", "HTTPStatusError")
    if httpx_status and isinstance(exc, httpx_status):
        response = getattr(exc, "response", None)
        return int(response.status_code) if response is not None else None
    unexpected = _loaded("qdrant_client.http.exceptions", "UnexpectedResponse")
    if unexpected and isinstance(exc, unexpected):
        code = getattr(exc, "status_code", None)
        return int(code) if code is not None else None
    requests_http = _loaded("requests.exceptions", "HTTPError")
    if requests_http and isinstance(exc, requests_http):
        response = getattr(exc, "response", None)
        return int(response.status_code) if response is not None else None
    return None


__all__ = ["NetworkFailure", "http_status", "network_failure"]
