"""A collection's life: created for an embedding model, checked against one, its metadata and version.

The collection's own metadata records the embedding model, its dimension and a version that
every write bumps, so other processes know when what they read of it is stale. A collection
that an earlier version wrote in qdrant-client local mode's files is named as such, with the
command that copies it (`rag migrate`).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any, Unpack

from components.resilience.errors import CollectionNotFound, EmbeddingMismatch
from components.stores.connection import ConnectionOptions, StoreConnection
from components.stores.edge import EdgeClient
from components.stores.edge_models import SparseSpec, VectorSpec
from components.stores.points import DENSE, INDEXED

log = logging.getLogger(__name__)

DISTANCE = "Dot"
"""Every embedder returns unit vectors, so the dot product is the cosine (``ensure`` says why not COSINE)."""
TYPED_KEY = "chunk_types"
"""Collection metadata key: every chunk carries its ``chunk_type`` (written by this version, or labelled)."""


class Collection(StoreConnection):
    """One named collection of the store: its creation, metadata, version and payload indexes."""

    def __init__(self, *, collection: str, **connection: Unpack[ConnectionOptions]) -> None:
        if not collection or not collection.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"invalid collection name {collection!r}: use letters, digits, - and _")
        super().__init__(**connection)
        self.collection = collection

    def exists(self) -> bool:
        return bool(self._call("collection_exists", self.client.collection_exists, self.collection))

    def made_by_local_mode(self) -> bool:
        """Whether this folder holds the collection in qdrant-client local mode's files (an earlier version's store)."""
        return self.is_edge and self.path is not None and (self.path / "collection" / self.collection).is_dir()

    def metadata(self) -> dict[str, Any]:
        if not self.exists():
            if self.made_by_local_mode():
                raise CollectionNotFound(
                    f"Collection {self.collection!r} at {self.location} was written by an earlier version "
                    f"(qdrant-client local mode). Run `rag migrate` to copy it into the Qdrant Edge store "
                    f"(vectors and payloads are copied, nothing is embedded again), or set QDRANT_ENGINE=local "
                    f"to keep using it as it is."
                )
            raise CollectionNotFound(
                f"Collection {self.collection!r} does not exist at {self.location}. "
                f"Run `rag ingest PATH` to create and fill it."
            )
        info = self._call("get_collection", self.client.get_collection, self.collection)
        return dict(info.config.metadata or {})

    def ensure(self, *, embedding_model: str, dim: int, sparse: dict[str, SparseSpec] | None = None) -> dict[str, Any]:
        """Create the collection for this model, or check that the existing one matches it.

        ``sparse``: the sparse vectors a new collection declares (``lexical.sparse_config()`` for
        chunks); an existing collection keeps what it has."""
        if not self.exists():
            meta = {
                "embedding_model": embedding_model,
                "dim": dim,
                "version": 0,
                "created_at": _now(),
                "schema": 1,
                TYPED_KEY: True,
            }
            self._call(
                "create_collection",
                self.client.create_collection,
                self.collection,
                # every embedder returns unit vectors, so the dot product is the cosine; COSINE would
                # make qdrant-client local mode re-normalise all stored vectors on every query
                # (~100 ms per query at 100k chunks, against ~8 ms for DOT); a server ranks the same
                vectors_config={DENSE: VectorSpec(size=dim, distance=DISTANCE)},
                **({"sparse_vectors_config": sparse} if sparse else {}),
                metadata=meta,
                # a server spreads the collection as configured; local mode has no shards to set
                **(
                    {}
                    if self.is_local
                    else {"shard_number": self.server.shards, "replication_factor": self.server.replicas}
                ),
            )
            self.index_payloads(have=set())
            log.info("created collection %s (%s, %d dims)", self.collection, embedding_model, dim)
            return meta
        meta = self.metadata()
        self.check_model(meta, embedding_model=embedding_model, dim=dim)
        self.index_payloads()
        return meta

    def index_payloads(self, have: set[str] | None = None) -> None:
        """Payload indexes on every field in ``INDEXED`` the collection lacks (``have``: the indexed
        fields when known, as for a new collection; else asked). A collection an earlier version made
        gets the newer ones on its next ingestion; local mode has no payload indexes."""
        if self.is_local and not self.is_edge:
            return
        if have is None:
            info = self._call("get_collection", self.client.get_collection, self.collection)
            have = set(info.payload_schema or {})
        for field, kind in INDEXED.items():
            if field not in have:
                self._call(
                    "create_payload_index",
                    self.client.create_payload_index,
                    self.collection,
                    field,
                    field_schema=kind,
                )

    def check_model(self, meta: dict[str, Any], *, embedding_model: str, dim: int | None = None) -> None:
        have, have_dim = meta.get("embedding_model"), meta.get("dim")
        if have != embedding_model or (dim is not None and have_dim != dim):
            raise EmbeddingMismatch(
                f"Collection {self.collection!r} was built with embedding model {have} "
                f"({have_dim} dims) but the configured model is {embedding_model}"
                f"{f' ({dim} dims)' if dim is not None else ''}. Either set EMBEDDING_BACKEND/"
                f"EMBEDDING_MODEL back to {have}, or use another collection (--collection NAME / "
                f"COLLECTION) and re-ingest, or drop this one with `rag drop {self.collection}`."
            )

    def bump_version(self, **extra: Any) -> int:
        meta = self.metadata()
        version = int(meta.get("version", 0)) + 1
        self.update_metadata(version=version, last_ingestion=_now(), **extra)
        return version

    def update_metadata(self, **fields: Any) -> None:
        """Set these fields of the collection's metadata (others stay)."""
        self._call("update_collection", self.client.update_collection, self.collection, metadata=fields)

    def sparse_vectors(self) -> set[str]:
        """Names of the collection's sparse vectors."""
        info = self._call("get_collection", self.client.get_collection, self.collection)
        return set(info.config.params.sparse_vectors or {})

    def drop(self) -> None:
        self._call("delete_collection", self.client.delete_collection, self.collection)

    def optimize(self) -> None:
        """Index what was written (the HNSW graph, payload indexes): Edge runs no optimizer in the
        background, so ingestion calls this once its writes are done; a server and local mode need nothing."""
        if isinstance(self.client, EdgeClient):
            self.client.optimize(self.collection)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
