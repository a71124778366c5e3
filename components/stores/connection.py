"""How the process reaches the store: a Qdrant server's client, or the embedded store's.

The embedded store (Qdrant Edge by default, ``components/stores/edge.py``; qdrant-client's local
mode with ``QDRANT_ENGINE=local``) admits one process per folder, so a process opens one client
per folder and shares it across collections, and a second process is told which one holds it. A
Qdrant server or cluster (``QDRANT_URL``) is reached with qdrant-client; what its calls raise when
the server does not answer or refuses the key becomes a typed error that says what to do.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from threadpoolctl import threadpool_limits

from components.resilience.errors import (
    CollectionNotFound,
    ConfigurationError,
    ServiceUnavailable,
    StoreLocked,
)
from components.resilience.network import http_status, network_failure
from components.stores import holder
from components.stores.edge import EdgeClient, StoreBusy, edge_root

if TYPE_CHECKING:  # qdrant-client is imported only where a server or local mode is opened
    from components.stores.server_client import ServerClient

Engine = Literal["edge", "local"]
"""The embedded store's engine: Qdrant Edge, or qdrant-client's local mode (the earlier default)."""


@dataclass(frozen=True)
class ServerOptions:
    """What only a Qdrant server uses: TLS trust and how a new collection is spread over a cluster."""

    ca_cert: Path | None = None
    """PEM file of the CA behind the server's certificate (QDRANT_CA_CERT); None: the system's."""
    shards: int = 1
    """``shard_number`` of a collection this process creates (QDRANT_SHARDS)."""
    replicas: int = 1
    """``replication_factor`` of a collection this process creates (QDRANT_REPLICAS)."""


class ConnectionOptions(TypedDict, total=False):
    """``StoreConnection``'s keyword arguments, for the classes that pass them on."""

    url: str | None
    path: Path | None
    api_key: str | None
    timeout: float
    client: ServerClient | EdgeClient | None
    server: ServerOptions | None
    engine: Engine


class StoreConnection:
    """One store's client, opened on first use: a server's by URL, or the embedded store's by folder."""

    def __init__(
        self,
        *,
        url: str | None = None,
        path: Path | None = None,
        api_key: str | None = None,
        timeout: float = 5.0,
        client: ServerClient | EdgeClient | None = None,
        server: ServerOptions | None = None,
        engine: Engine = "edge",
    ) -> None:
        if url is None and path is None and client is None:
            raise ValueError("QdrantIndex needs a url (server) or a path (embedded)")
        self.url = url
        self.path = Path(path) if path is not None else None
        self.api_key = api_key
        self.timeout = timeout
        self.server = server or ServerOptions()
        self.engine: Engine = engine
        # the embedded store locks its folder per client, so a process shares one client across collections
        self._client: ServerClient | EdgeClient | None = client
        # two threads asking for the client at once (collections searched concurrently) must open one
        self._opening = threading.Lock()

    @property
    def is_local(self) -> bool:
        return self.url is None

    @property
    def location(self) -> str:
        return self.url or str(self.path.resolve() if self.path else "")

    @property
    def is_edge(self) -> bool:
        return self.url is None and self.engine == "edge"

    @property
    def client(self) -> ServerClient | EdgeClient:
        if self._client is None:
            with self._opening:
                if self._client is None:
                    self._client = self._open()
        return self._client

    def _open(self) -> ServerClient | EdgeClient:
        """A new client: a server's by URL, or the embedded store's by folder (recorded as its holder)."""
        if self.url:
            tls: dict[str, Any] = {"verify": str(self.server.ca_cert)} if self.server.ca_cert else {}
            # the client's timeout is whole seconds; at least one
            timeout = max(1, round(self.timeout))
            return _server_client(url=self.url, api_key=self.api_key, timeout=timeout, **tls)
        assert self.path is not None
        self.path.mkdir(parents=True, exist_ok=True)
        client: ServerClient | EdgeClient
        try:
            if self.is_edge:
                client = EdgeClient(edge_root(self.path))
            else:
                _single_threaded_blas()
                client = _server_client(path=str(self.path))
        except (RuntimeError, StoreBusy) as e:
            if isinstance(e, StoreBusy) or "already accessed" in str(e):
                who = holder.describe(self.path)
                raise StoreLocked(
                    f"The embedded Qdrant store at {self.location} is in use by another process"
                    f"{f': {who}' if who else ''} (the embedded store allows one process per folder). "
                    f"Stop that process, or run a Qdrant server (deploy/compose.yaml) and set "
                    f"QDRANT_URL so that several processes can share the index."
                ) from e
            raise
        holder.record(self.path)
        return client

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
            if self.is_local and self.path is not None:
                holder.release(self.path)

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """Run a client call, turning connection failures into ServiceUnavailable."""
        try:
            return fn(*args, **kwargs)
        except (StoreLocked, CollectionNotFound):
            raise
        except Exception as e:
            if self.url and http_status(e) in {401, 403}:
                raise ConfigurationError(
                    f"Qdrant at {self.url} refused the request ({what}: HTTP {http_status(e)}): "
                    f"{'QDRANT_API_KEY is not set' if not self.api_key else 'check QDRANT_API_KEY'}."
                ) from e
            failure = network_failure(e)
            if self.url and failure is not None:
                raise ServiceUnavailable(
                    f"Qdrant at {self.url} did not answer ({what}: {failure}, {type(e).__name__}). Check that "
                    f"the server runs, or unset QDRANT_URL to use the embedded store."
                ) from e
            raise


def _server_client(**qdrant_client_args: Any) -> ServerClient:
    """qdrant-client's client (a server's, or local mode's) behind ``ServerClient``; qdrant-client is
    imported here, where one is opened, so the embedded store's path never imports it."""
    from qdrant_client import QdrantClient

    from components.stores.server_client import ServerClient

    return ServerClient(QdrantClient(**qdrant_client_args))


def _single_threaded_blas() -> None:
    """Limit numpy's BLAS to one thread for the rest of the process (embedded store only).

    Local mode searches by brute force with numpy. OpenBLAS's worker threads keep spinning for a
    while after each call and, on a 2-core machine, starve torch's threads embedding the next
    query: on SciFact (12.5k chunks) the query embedding takes 43-50 ms inside a search loop
    against 13 ms alone (docs/decisions/0008-dense-search-latency.md). The matrix-vector
    products of a search gain nothing from a second thread at this size.
    """
    threadpool_limits(limits=1, user_api="blas")
