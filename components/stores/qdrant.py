"""The Qdrant collection that ingestion writes and queries read.

One class for every deployment: the embedded store on disk (Qdrant Edge by default,
``components/stores/edge.py``; qdrant-client's local mode with ``QDRANT_ENGINE=local``; one
process per folder either way) and a Qdrant server or cluster through ``QDRANT_URL``. The collection's
own metadata records the embedding model, its dimension and a version that every write bumps,
so other processes know when their BM25 index is stale.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import numpy as np
from qdrant_client import QdrantClient, models
from threadpoolctl import threadpool_limits

from components.ingestion.chunk_types import chunk_type
from components.ingestion.documents import Chunk
from components.resilience.errors import (
    CollectionNotFound,
    ConfigurationError,
    EmbeddingMismatch,
    ServiceUnavailable,
    StoreLocked,
)
from components.resilience.network import http_status, network_failure
from components.stores import holder
from components.stores.edge import EdgeClient, StoreBusy, edge_root

log = logging.getLogger(__name__)

DENSE = "dense"
"""Name of the one dense vector of each point."""
DISTANCE = models.Distance.DOT
"""Every embedder returns unit vectors, so the dot product is the cosine (``ensure`` says why not COSINE)."""
HNSW_EF = 128
"""Fewest candidates an HNSW search keeps; a search keeps at least four times its limit. With
Qdrant's default (100), dense Recall@100 on SciFact train fell from 0.919 (exact) to 0.910, with
twice the limit to 0.914; four times matched the exact search. A segment too small for a graph is
searched exactly whatever this says."""
CONTENT_KEY = "text"
"""Payload key of the chunk's text (LangChain's ``content_payload_key``)."""
METADATA_KEY = "metadata"
"""Payload key of the document's own metadata (frontmatter extras, a JSONL record's ``metadata``)."""
Engine = Literal["edge", "local"]
"""The embedded store's engine: Qdrant Edge, or qdrant-client's local mode (the earlier default)."""
_NS = uuid.UUID("6f1c7a52-3d4e-4b8a-9a51-6c1f0e2d9b7a")
#: payload fields the ingestion skip check reads; the rest stays on disk
_STATE_FIELDS = ["doc_id", "content_hash", "total_chunks", "origin", "chunk_index"]
INDEXED = {
    # what search filters test (components/retrieval/filters.py, the CLI's paper options)
    "doc_id": "keyword",
    "vault": "keyword",
    "tags": "keyword",
    "language": "keyword",
    "source": "keyword",
    "source_prefixes": "keyword",
    "section_hierarchy": "keyword",
    "chunk_type": "keyword",
    "created_ts": "float",
    "modified_ts": "float",
    "format": "keyword",
    "access": "keyword",
    "metadata.year": "float",
    "metadata.collections": "keyword",
    "metadata.item_type": "keyword",
    # what the store's own reads and writes select by (parents, a rewrite's leftovers, examples)
    "parent_id": "keyword",
    "chunk_index": "integer",
    "audience": "keyword",
}


TYPED_KEY = "chunk_types"
"""Collection metadata key: every chunk carries its ``chunk_type`` (written by this version, or labelled)."""


def of_documents(doc_ids: Sequence[str]) -> models.Filter:
    """The points of these documents (a chunk's ``doc_id``, or any of a sentence's listed documents)."""
    return models.Filter(must=[models.FieldCondition(key="doc_id", match=models.MatchAny(any=list(doc_ids)))])


def point_id(doc_id: str, index: int) -> str:
    """Deterministic id: the same chunk of the same document always lands on the same point."""
    return str(uuid.uuid5(_NS, f"{doc_id}\x00{index}"))


def chunk_point_id(chunk_id: str) -> str | None:
    """The point id of a chunk id (``doc_id#index``, as ``Chunk.chunk_id``), or None if malformed."""
    doc_id, sep, index = chunk_id.rpartition("#")
    if not sep or not index.isdigit():
        return None
    return point_id(doc_id, int(index))


def _ts(iso: str | None) -> float | None:
    if not iso:
        return None
    try:
        dt = datetime.fromisoformat(iso)
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.timestamp()


def norm_prefix(prefix: str) -> str:
    """Prefix filters match whole path segments: ``/notes/a`` matches ``/notes/a/x.md``."""
    return prefix.rstrip("/") or "/"


def source_prefixes(source: str) -> list[str]:
    """Every segment prefix of a path or URL, stored so a prefix filter is a keyword match."""
    if "://" in source:
        scheme, rest = source.split("://", 1)
        parts = rest.split("/")
        out = [f"{scheme}://{'/'.join(parts[:i])}" for i in range(1, len(parts) + 1)]
    else:
        parts = source.split("/")
        out = ["/".join(parts[:i]) or "/" for i in range(1, len(parts) + 1)]
    return sorted({norm_prefix(p) for p in out if p})


def chunk_payload(c: Chunk, content_hash: str) -> dict[str, Any]:
    """Everything a search result shows and a filter can test, for one chunk."""
    d = c.doc
    return {
        "origin": d.origin or d.source,
        CONTENT_KEY: c.text,
        "doc_id": d.doc_id,
        "chunk_id": c.chunk_id,
        "chunk_index": c.index,
        "total_chunks": c.total,
        "source": d.source,
        "source_prefixes": source_prefixes(d.source),
        "title": d.title,
        "section_hierarchy": c.section_hierarchy,
        "section": " > ".join(c.section_hierarchy),
        "chunk_type": c.chunk_type,
        "vault": d.vault,
        "tags": d.tags,
        "aliases": d.aliases,
        "links": d.links,
        "created": d.created,
        "created_ts": _ts(d.created),
        "modified": d.modified,
        "modified_ts": _ts(d.modified),
        "language": d.language,
        "format": d.format,
        "content_hash": content_hash,
        "parent_id": c.parent_id,
        "parent_start": c.parent_start,
        "parent_end": c.parent_end,
        METADATA_KEY: d.metadata,
        "access": d.access,
    }


@dataclass(frozen=True)
class ServerOptions:
    """What only a Qdrant server uses: TLS trust and how a new collection is spread over a cluster."""

    ca_cert: Path | None = None
    """PEM file of the CA behind the server's certificate (QDRANT_CA_CERT); None: the system's."""
    shards: int = 1
    """``shard_number`` of a collection this process creates (QDRANT_SHARDS)."""
    replicas: int = 1
    """``replication_factor`` of a collection this process creates (QDRANT_REPLICAS)."""


@dataclass(frozen=True)
class DocState:
    """What the index holds of one document: its hash, how many points carry it, of how many."""

    content_hash: str
    points: int
    total: int
    origin: str

    @property
    def complete(self) -> bool:
        return self.points == self.total


class QdrantIndex:
    """Qdrant collection access: create/validate, write documents atomically-per-request, read."""

    def __init__(
        self,
        *,
        collection: str,
        url: str | None = None,
        path: Path | None = None,
        api_key: str | None = None,
        timeout: float = 5.0,
        client: QdrantClient | EdgeClient | None = None,
        server: ServerOptions | None = None,
        engine: Engine = "edge",
    ) -> None:
        if not collection or not collection.replace("-", "").replace("_", "").isalnum():
            raise ValueError(f"invalid collection name {collection!r}: use letters, digits, - and _")
        if url is None and path is None and client is None:
            raise ValueError("QdrantIndex needs a url (server) or a path (embedded)")
        self.collection = collection
        self.url = url
        self.path = Path(path) if path is not None else None
        self.api_key = api_key
        self.timeout = timeout
        self.server = server or ServerOptions()
        self.engine: Engine = engine
        # the embedded store locks its folder per client, so a process shares one client across collections
        self._client: QdrantClient | EdgeClient | None = client

    # ------------------------------------------------------------------ connection
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
    def client(self) -> QdrantClient | EdgeClient:
        if self._client is None:
            if self.url:
                tls: dict[str, Any] = {"verify": str(self.server.ca_cert)} if self.server.ca_cert else {}
                # the client's timeout is whole seconds; at least one
                timeout = max(1, round(self.timeout))
                self._client = QdrantClient(url=self.url, api_key=self.api_key, timeout=timeout, **tls)
            else:
                assert self.path is not None
                self.path.mkdir(parents=True, exist_ok=True)
                try:
                    if self.is_edge:
                        self._client = EdgeClient(edge_root(self.path))
                    else:
                        _single_threaded_blas()
                        self._client = QdrantClient(path=str(self.path))
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
        return self._client

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

    # ------------------------------------------------------------------ collection
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

    def ensure(self, *, embedding_model: str, dim: int, sparse: dict[str, Any] | None = None) -> dict[str, Any]:
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
                vectors_config={DENSE: models.VectorParams(size=dim, distance=DISTANCE)},
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

    # ------------------------------------------------------------------ reads
    def count(self, where: models.Filter | None = None) -> int:
        """How many points pass ``where`` (all of them without one)."""
        return int(self._call("count", self.client.count, self.collection, count_filter=where, exact=True).count)

    def scroll(
        self,
        *,
        fields: Sequence[str] | bool = True,
        batch: int = 2048,
        scroll_filter: models.Filter | None = None,
        vectors: Sequence[str] | bool = False,
    ) -> Iterator[models.Record]:
        offset: Any = None
        while True:
            points, offset = self._call(
                "scroll",
                self.client.scroll,
                self.collection,
                scroll_filter=scroll_filter,
                limit=batch,
                offset=offset,
                with_payload=fields if fields is not True else True,
                with_vectors=vectors,
            )
            yield from points
            if offset is None:
                break

    def facet(self, key: str, *, where: models.Filter | None = None, limit: int = 100_000) -> dict[str, int]:
        """Points per value of an indexed field (each value of a list field counts), most first."""
        res = self._call(
            "facet", self.client.facet, self.collection, key=key, facet_filter=where, limit=limit, exact=True
        )
        return {str(h.value): int(h.count) for h in res.hits}

    def doc_states(self, doc_ids: Sequence[str] | None = None) -> dict[str, DocState]:
        """Per document (of ``doc_ids`` only, when given): content hash, points holding that hash,
        expected total. Asking for the documents at hand costs those documents, not the collection."""
        if doc_ids is not None and not doc_ids:
            return {}
        acc: dict[str, list[Any]] = {}
        for p in self.scroll(fields=_STATE_FIELDS, scroll_filter=None if doc_ids is None else of_documents(doc_ids)):
            pl = p.payload or {}
            doc_id = str(pl.get("doc_id"))
            h = str(pl.get("content_hash"))
            cur = acc.get(doc_id)
            if cur is None:
                acc[doc_id] = [h, 1, int(pl.get("total_chunks", 0)), str(pl.get("origin", ""))]
            elif cur[0] == h:
                cur[1] += 1
            else:  # mixed versions: only possible after an interrupted write; force a rewrite
                cur[0] = "mixed"
        return {k: DocState(v[0], v[1], v[2], v[3]) for k, v in acc.items()}

    def states_reader(self) -> Callable[[Sequence[str]], dict[str, DocState]]:
        """Documents' states for a caller that asks batch after batch: a filtered read per batch,
        except in qdrant-client's local mode, which tests a filter in Python on every point, so
        there the states are read once, whole."""
        if self.engine == "local" and self.is_local:
            every = self.doc_states()
            return lambda ids: every
        return self.doc_states

    def chunks_by_parent(self, parent_ids: Sequence[str]) -> list[dict[str, Any]]:
        """Payloads of every chunk of the given parent sections, ordered by parent then chunk index.

        The query graph expands the chunks it found to their whole sections; one filtered
        scroll fetches all the sections' chunks in a single round trip (``parent_id`` is a
        keyword index on a server).
        """
        wanted = list(dict.fromkeys(p for p in parent_ids if p))
        if not wanted:
            return []
        flt = models.Filter(must=[models.FieldCondition(key="parent_id", match=models.MatchAny(any=wanted))])
        rank = {p: i for i, p in enumerate(wanted)}
        out = [dict(p.payload or {}) for p in self.scroll(scroll_filter=flt, batch=256)]
        out.sort(key=lambda pl: (rank.get(str(pl.get("parent_id")), len(rank)), int(pl.get("chunk_index", 0))))
        return out

    # ------------------------------------------------------------------ writes
    def write(
        self,
        items: Sequence[tuple[str, list[dict[str, Any]], Sequence[Sequence[float]]]],
        *,
        sparse: tuple[str, Sequence[Sequence[models.SparseVector]]] | None = None,
    ) -> None:
        """Write several documents in one request: each one's new chunks, then its leftovers out.

        ``items`` holds (doc_id, chunk payloads, vectors) per document; ``sparse`` a sparse
        vector's name and, per document, each chunk's sparse vector. Upserting onto
        deterministic ids overwrites a changed document in place, and the delete that follows
        in the same request removes the chunks past its new end, so a reader never sees the
        document missing and never sees it twice.
        """
        ops: list[Any] = []
        deletes: list[Any] = []
        for n, (doc_id, payloads, vectors) in enumerate(items):
            if not payloads:
                continue
            # unit length, so that the collection's dot product is the cosine (see ensure)
            unit = np.asarray(vectors, dtype=np.float64)
            unit /= np.maximum(np.linalg.norm(unit, axis=1, keepdims=True), 1e-12)
            named: list[dict[str, Any]] = [{DENSE: v.tolist()} for v in unit]
            if sparse is not None:
                for vec, sv in zip(named, sparse[1][n], strict=True):
                    vec[sparse[0]] = sv
            points = [
                models.PointStruct(id=point_id(doc_id, int(pl["chunk_index"])), vector=vec, payload=pl)
                for pl, vec in zip(payloads, named, strict=True)
            ]
            ops.append(models.UpsertOperation(upsert=models.PointsList(points=points)))
            deletes.append(
                models.DeleteOperation(
                    delete=models.FilterSelector(
                        filter=models.Filter(
                            must=[
                                models.FieldCondition(key="doc_id", match=models.MatchValue(value=doc_id)),
                                models.FieldCondition(key="chunk_index", range=models.Range(gte=len(payloads))),
                            ]
                        )
                    )
                )
            )
        if ops:
            self._call(
                "batch_update_points",
                self.client.batch_update_points,
                self.collection,
                update_operations=ops + deletes,
                wait=True,
            )

    def backfill_chunk_types(self) -> int:
        """Label the chunks a version without ``chunk_type`` wrote; returns how many were labelled.

        The type is computed from the stored payload alone (see ``chunk_types``), so this costs a
        filtered scroll and one payload write per type: no re-chunking, no embedding. The scroll
        tests every point, so once a collection is known to be labelled (its metadata says so, as a
        new collection's does) it is skipped.
        """
        if self.metadata().get(TYPED_KEY):
            return 0
        missing = models.Filter(must=[models.IsEmptyCondition(is_empty=models.PayloadField(key="chunk_type"))])
        by_type: dict[str, list[Any]] = {}
        for p in self.scroll(fields=[CONTENT_KEY, "section_hierarchy", "title"], scroll_filter=missing):
            pl = p.payload or {}
            label = chunk_type(
                str(pl.get(CONTENT_KEY) or ""), list(pl.get("section_hierarchy") or []), str(pl.get("title") or "")
            )
            by_type.setdefault(label, []).append(p.id)
        for kind, ids in by_type.items():
            self._call(
                "set_payload",
                self.client.set_payload,
                self.collection,
                payload={"chunk_type": kind},
                points=models.PointIdsList(points=ids),
                wait=True,
            )
        self.update_metadata(**{TYPED_KEY: True})
        return sum(len(ids) for ids in by_type.values())

    def upsert_vectors(
        self, point_ids: Sequence[str], vectors: np.ndarray, *, payloads: Sequence[dict[str, Any]] | None = None
    ) -> None:
        """Write vectors (with ``payloads``, else bare) under the given ids, in one request."""
        pls: Sequence[dict[str, Any] | None] = payloads if payloads is not None else [None] * len(point_ids)
        points = [
            models.PointStruct(id=i, vector={DENSE: v.tolist()}, payload=pl)
            for i, v, pl in zip(point_ids, vectors, pls, strict=True)
        ]
        self._call("upsert", self.client.upsert, self.collection, points=points, wait=True)

    def set_payloads(self, payloads: dict[str, dict[str, Any]], *, batch: int = 1024) -> None:
        """Set these keys of each point's payload (point id -> keys), ``batch`` points per request."""
        ids = list(payloads)
        for start in range(0, len(ids), batch):
            ops = [
                models.SetPayloadOperation(set_payload=models.SetPayload(payload=payloads[i], points=[i]))
                for i in ids[start : start + batch]
            ]
            self._call(
                "batch_update_points",
                self.client.batch_update_points,
                self.collection,
                update_operations=ops,
                wait=True,
            )

    def delete_points(self, point_ids: Sequence[str]) -> None:
        if point_ids:
            self._call(
                "delete",
                self.client.delete,
                self.collection,
                points_selector=models.PointIdsList(points=list(point_ids)),
                wait=True,
            )

    def delete_documents(self, doc_ids: Sequence[str]) -> None:
        if not doc_ids:
            return
        self._call(
            "delete",
            self.client.delete,
            self.collection,
            wait=True,
            points_selector=models.FilterSelector(filter=of_documents(doc_ids)),
        )

    def vectors(self, point_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored dense vectors by point id (ids not in the collection are left out).

        The graders need a chunk's passage vector when dense search did not return it (a
        BM25-only hit); reading it back costs a lookup, re-embedding it a forward pass.
        """
        out: dict[str, np.ndarray] = {}
        for p in self._retrieve(point_ids, with_payload=False, with_vectors=[DENSE]):
            v = p.vector.get(DENSE) if isinstance(p.vector, dict) else p.vector
            if v is not None:
                out[str(p.id)] = np.asarray(v, dtype=np.float32)
        return out

    # ------------------------------------------------------------------ search
    def search(
        self,
        vector: Any,
        *,
        limit: int = 10,
        query_filter: models.Filter | None = None,
        with_payload: bool | Sequence[str] = True,
    ) -> list[models.ScoredPoint]:
        # local mode searches exactly (and warns about any search parameter)
        params = None if self.engine == "local" and self.is_local else self._search_params(limit)
        return self._query(vector.tolist(), DENSE, limit, query_filter, with_payload, params)

    def search_sparse(
        self,
        name: str,
        vector: models.SparseVector,
        *,
        limit: int = 10,
        query_filter: models.Filter | None = None,
        with_payload: bool | Sequence[str] = True,
    ) -> list[models.ScoredPoint]:
        """Points by the dot product of their sparse vector ``name`` with ``vector`` (the engine
        applies the collection's modifier, e.g. IDF); none for an empty vector."""
        if not vector.indices:
            return []
        return self._query(vector, name, limit, query_filter, with_payload, None)

    def _query(
        self,
        query: Any,
        using: str,
        limit: int,
        query_filter: models.Filter | None,
        with_payload: bool | Sequence[str],
        search_params: models.SearchParams | None,
    ) -> list[models.ScoredPoint]:
        res = self._call(
            "query_points",
            self.client.query_points,
            self.collection,
            query=query,
            using=using,
            limit=limit,
            query_filter=query_filter,
            with_payload=with_payload,
            with_vectors=False,
            search_params=search_params,
        )
        return list(res.points)

    def set_vectors(self, name: str, vectors: dict[str, Any]) -> None:
        """Set the named vector of existing points (point id -> vector), in one request."""
        points = [models.PointVectors(id=i, vector={name: v}) for i, v in vectors.items()]
        if points:
            self._call("update_vectors", self.client.update_vectors, self.collection, points=points, wait=True)

    @staticmethod
    def _search_params(limit: int) -> models.SearchParams:
        return models.SearchParams(hnsw_ef=max(HNSW_EF, 4 * limit))

    def payloads(self, point_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Payloads by point id (ids not in the collection are left out)."""
        return {str(p.id): dict(p.payload or {}) for p in self._retrieve(point_ids, with_payload=True)}

    def _retrieve(self, point_ids: Sequence[str], **kwargs: Any) -> list[models.Record]:
        """Points by id, each asked for once; no request at all for no ids."""
        ids = list(dict.fromkeys(point_ids))
        if not ids:
            return []
        return list(self._call("retrieve", self.client.retrieve, self.collection, ids=ids, **kwargs))


def _single_threaded_blas() -> None:
    """Limit numpy's BLAS to one thread for the rest of the process (embedded store only).

    Local mode searches by brute force with numpy. OpenBLAS's worker threads keep spinning for a
    while after each call and, on a 2-core machine, starve torch's threads embedding the next
    query: on SciFact (12.5k chunks) the query embedding takes 43-50 ms inside a search loop
    against 13 ms alone (docs/decisions/0008-dense-search-latency.md). The matrix-vector
    products of a search gain nothing from a second thread at this size.
    """
    threadpool_limits(limits=1, user_api="blas")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
