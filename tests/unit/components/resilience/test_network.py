"""Network failures are recognised by exception type, whichever client library raised them."""

from __future__ import annotations

import errno
import socket

import httpx
import pytest
import requests
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from components.resilience.errors import ServiceUnavailable
from components.resilience.network import http_status, network_failure
from components.stores.qdrant import QdrantIndex

REQUEST = httpx.Request("GET", "http://127.0.0.1:1/")


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (httpx.ConnectError("refused", request=REQUEST), "unreachable"),
        (httpx.ConnectTimeout("no accept", request=REQUEST), "unreachable"),
        (ConnectionRefusedError(errno.ECONNREFUSED, "refused"), "unreachable"),
        (ConnectionError("Failed to connect to Ollama"), "unreachable"),  # what the ollama client raises
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), "unreachable"),
        (OSError(errno.EHOSTUNREACH, "No route to host"), "unreachable"),
        (requests.exceptions.ConnectionError("refused"), "unreachable"),
        (requests.exceptions.ConnectTimeout("no accept"), "unreachable"),
        (httpx.ReadTimeout("slow", request=REQUEST), "timeout"),
        (TimeoutError("slow"), "timeout"),
        (requests.exceptions.ReadTimeout("slow"), "timeout"),
        (httpx.ReadError("reset mid-answer", request=REQUEST), "broken"),
        (httpx.RemoteProtocolError("server disconnected", request=REQUEST), "broken"),
        (ResponseHandlingException(httpx.ConnectError("refused", request=REQUEST)), "unreachable"),
        (ResponseHandlingException(httpx.ReadTimeout("slow", request=REQUEST)), "timeout"),
    ],
)
def test_network_failures_by_type(exc: BaseException, expected: str) -> None:
    assert network_failure(exc) == expected


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("Connection refused"),  # the words alone mean nothing
        FileNotFoundError(errno.ENOENT, "no such file"),  # an OSError, but not a socket's
        requests.exceptions.InvalidURL("bad url"),  # an OSError subclass in requests, but the caller's mistake
        ResponseHandlingException(ValueError("response did not fit the schema")),
        UnexpectedResponse(404, "Not Found", b"{}", httpx.Headers()),
    ],
)
def test_other_errors_are_not_network_failures(exc: BaseException) -> None:
    assert network_failure(exc) is None


def test_a_class_named_like_a_network_error_is_not_one() -> None:
    class ConnectTimeoutInTheName(Exception):
        pass

    assert network_failure(ConnectTimeoutInTheName()) is None


def test_openai_errors_when_the_sdk_is_installed() -> None:
    openai = pytest.importorskip("openai")
    assert network_failure(openai.APIConnectionError(request=REQUEST)) == "unreachable"
    assert network_failure(openai.APITimeoutError(request=REQUEST)) == "timeout"
    response = httpx.Response(404, request=REQUEST, json={"error": {"message": "model not found"}})
    assert http_status(openai.NotFoundError("model not found", response=response, body=None)) == 404


def test_grpc_status_codes_when_grpc_is_installed() -> None:
    grpc = pytest.importorskip("grpc")
    from grpc.aio import AioRpcError, Metadata

    def rpc_error(code: object) -> BaseException:
        return AioRpcError(code, Metadata(), Metadata())  # type: ignore[arg-type]

    assert network_failure(rpc_error(grpc.StatusCode.UNAVAILABLE)) == "unreachable"
    assert network_failure(rpc_error(grpc.StatusCode.DEADLINE_EXCEEDED)) == "timeout"
    assert network_failure(rpc_error(grpc.StatusCode.NOT_FOUND)) is None


def test_http_status_of_the_clients_errors() -> None:
    import ollama

    assert http_status(ollama.ResponseError("model 'x' not found", 404)) == 404
    response = httpx.Response(503, request=REQUEST)
    assert http_status(httpx.HTTPStatusError("unavailable", request=REQUEST, response=response)) == 503
    assert http_status(UnexpectedResponse(500, "Internal", b"", httpx.Headers())) == 500
    assert http_status(ValueError("500")) is None


def test_a_qdrant_server_that_is_down_is_service_unavailable() -> None:
    """The real qdrant-client against a port nobody listens on: the store says so, with what to do."""
    from qdrant_client import QdrantClient

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    # the version check would warn from a background thread that the server did not answer
    client = QdrantClient(url=url, timeout=2, check_compatibility=False)
    index = QdrantIndex(collection="rag", url=url, client=client)
    with pytest.raises(ServiceUnavailable, match=r"did not answer \(collection_exists: unreachable.*QDRANT_URL"):
        index.exists()
