"""The embedded store on Qdrant Edge: the part of qdrant-client's interface this project calls.

Qdrant Edge (``qdrant-edge-py``) is Qdrant's own engine in-process: segments on disk, HNSW,
payload indexes evaluated inside the engine. qdrant-client's local mode, the earlier embedded
store, reads every collection into memory on open, searches by brute force and filters in
Python (docs/decisions/0016-embedded-engine.md has the measurements).

``EdgeClient`` answers the calls ``QdrantIndex`` and its neighbours make, named and shaped as
qdrant-client's (``scroll``, ``query_points``, ``batch_update_points``, ...), in the store's
vocabulary: Edge's own types in, and answers with the attributes of qdrant-client's
(``components/stores/edge_models.py``). A Qdrant server (``QDRANT_URL``) is reached through
``ServerClient``, which takes the same calls and translates them for qdrant-client, so the code
above the store does not know which one it talks to, and this path never imports qdrant-client.

Layout: one Edge shard per collection in ``<QDRANT_PATH>/edge/<collection>/``, and the
collection's metadata (embedding model, dimension, version) in ``<collection>.json`` beside
it, written after the shard exists, so a collection without it is a half-created one.
A lock file admits one process per folder, as Edge admits one process per shard.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from components.stores.edge_models import (
    DISTANCE,
    DeleteWhere,
    EdgeCollectionInfo,
    EdgeConfig,
    EdgeCount,
    EdgeFacet,
    EdgeFacetHit,
    EdgeParams,
    EdgePoint,
    EdgeResponse,
    Operation,
    SetPayload,
    SparseSpec,
    Upsert,
    VectorSpec,
    edge_ids,
    index_params,
    record,
    scored,
    selector,
    sparse_params,
)

log = logging.getLogger(__name__)

FOLDER = "edge"
"""Subfolder of QDRANT_PATH that holds the Edge shards (local mode's files stay beside it)."""
_LOCK = ".lock"


class StoreBusy(RuntimeError):
    """Another process holds the Edge folder."""


def edge_root(path: Path) -> Path:
    """Where the Edge shards of the embedded store at ``path`` live."""
    return path / FOLDER


class EdgeClient:
    """qdrant-client's calls, as this project makes them, over the Edge shards of one folder.

    Thread-safe: shards are opened once under a lock; Edge serialises writes to a shard itself.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self._lock_file = open(root / _LOCK, "a+")  # noqa: SIM115  # held until close()
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as e:
            self._lock_file.close()
            raise StoreBusy(f"{root} is held by another process") from e
        self._shards: dict[str, qe.EdgeShard] = {}
        #: shards this client wrote to: flushed at close; a shard only read is closed as it is
        #: (a read-only command's flush costs a tenth of a second at 12k chunks)
        self._written: set[str] = set()
        self._guard = threading.RLock()

    # ------------------------------------------------------------------ shards and metadata
    def _meta_path(self, name: str) -> Path:
        return self.root / f"{name}.json"

    def _read_meta(self, name: str) -> dict[str, Any]:
        return dict(json.loads(self._meta_path(name).read_text(encoding="utf-8")))

    def _write_meta(self, name: str, meta: dict[str, Any]) -> None:
        # a rename, so a reader never sees half a file and a crash leaves the old one
        tmp = self._meta_path(name).with_suffix(".json.tmp")
        tmp.write_text(json.dumps(meta, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, self._meta_path(name))

    def _shard(self, name: str) -> qe.EdgeShard:
        with self._guard:
            shard = self._shards.get(name)
            if shard is None:
                if not self.collection_exists(name):
                    raise ValueError(f"Collection `{name}` doesn't exist!")  # qdrant-client's words
                shard = qe.EdgeShard.load(str(self.root / name))
                self._shards[name] = shard
            return shard

    def _writable(self, name: str) -> qe.EdgeShard:
        """The shard, marked written (flushed at close)."""
        shard = self._shard(name)
        self._written.add(name)
        return shard

    def collection_exists(self, collection_name: str) -> bool:
        return self._meta_path(collection_name).is_file()

    def collection_names(self) -> list[str]:
        return sorted(p.stem for p in self.root.glob("*.json"))

    def get_collection(self, collection_name: str) -> EdgeCollectionInfo:
        meta = self._read_meta(collection_name)
        vectors = {name: VectorSpec(int(p["size"]), str(p["distance"])) for name, p in meta["_vectors"].items()}
        sparse = {name: SparseSpec("idf") for name in meta.get("_sparse", [])}
        config = EdgeConfig(
            params=EdgeParams(vectors=vectors, sparse_vectors=sparse or None),
            metadata={k: v for k, v in meta.items() if not k.startswith("_")},
        )
        return EdgeCollectionInfo(config, lambda: self._shard(collection_name).info())

    def create_collection(
        self,
        collection_name: str,
        vectors_config: dict[str, VectorSpec],
        metadata: dict[str, Any] | None = None,
        sparse_vectors_config: dict[str, SparseSpec] | None = None,
        **_server_only: Any,
    ) -> bool:
        """A new shard with these dense and sparse vectors; ``**_server_only`` (shards, replicas) means nothing here."""
        with self._guard:
            folder = self.root / collection_name
            if folder.exists():  # a creation that crashed before its metadata was written
                shutil.rmtree(folder)
            config = qe.EdgeConfig(
                vectors={
                    name: qe.EdgeVectorParams(size=p.size, distance=DISTANCE[p.distance])
                    for name, p in vectors_config.items()
                },
                sparse_vectors={name: sparse_params(p) for name, p in (sparse_vectors_config or {}).items()},
            )
            self._shards[collection_name] = qe.EdgeShard.create(str(folder), config)
            self._written.add(collection_name)
            spec = {name: {"size": p.size, "distance": p.distance} for name, p in vectors_config.items()}
            sparse = sorted(sparse_vectors_config or {})
            self._write_meta(collection_name, {**(metadata or {}), "_vectors": spec, "_sparse": sparse})
        return True

    def create_sparse_vector(self, collection_name: str, name: str, params: SparseSpec) -> None:
        """Add a sparse vector to an existing collection (its points get theirs by ``update_vectors``)."""
        with self._guard:
            p = sparse_params(params)
            self._writable(collection_name).update(qe.UpdateOperation.create_sparse_vector(name, modifier=p.modifier))
            meta = self._read_meta(collection_name)
            meta["_sparse"] = sorted({*meta.get("_sparse", []), name})
            self._write_meta(collection_name, meta)

    def create_payload_index(self, collection_name: str, field_name: str, field_schema: str, **_: Any) -> None:
        params = index_params(field_schema)
        self._writable(collection_name).update(qe.UpdateOperation.create_field_index(field_name, params))

    def update_collection(self, collection_name: str, metadata: dict[str, Any] | None = None, **_: Any) -> bool:
        """Merges ``metadata`` into the collection's, as a Qdrant server does."""
        with self._guard:
            meta = self._read_meta(collection_name)
            meta.update(metadata or {})
            self._write_meta(collection_name, meta)
        return True

    def delete_collection(self, collection_name: str) -> bool:
        with self._guard:
            shard = self._shards.pop(collection_name, None)
            self._written.discard(collection_name)
            if shard is not None:
                shard.close()
            existed = self.collection_exists(collection_name)
            self._meta_path(collection_name).unlink(missing_ok=True)
            shutil.rmtree(self.root / collection_name, ignore_errors=True)
        return existed

    def rename_collection(self, old: str, new: str) -> None:
        """Give a complete collection its final name (``new`` must not exist).

        The folder moves first and the metadata after it: a crash between the two leaves ``new``
        without metadata (a half-created collection, replaced by the next creation) and ``old``
        without its folder (deleted by the next attempt), never a collection that looks whole but is not.
        """
        with self._guard:
            if self.collection_exists(new):
                raise ValueError(f"collection {new!r} already exists")
            meta = self._read_meta(old)
            shard = self._shards.pop(old, None)
            self._written.discard(old)
            if shard is not None:
                shard.flush()
                shard.close()
            shutil.rmtree(self.root / new, ignore_errors=True)
            os.replace(self.root / old, self.root / new)
            self._write_meta(new, meta)
            self._meta_path(old).unlink()

    def optimize(self, collection_name: str) -> bool:
        """Build the HNSW graph and indexes of what was written (Edge has no background optimizer)."""
        return bool(self._writable(collection_name).optimize())

    def close(self) -> None:
        with self._guard:
            for name, shard in self._shards.items():
                if name in self._written:
                    shard.flush()
                shard.close()
            self._shards.clear()
            self._written.clear()
            if not self._lock_file.closed:
                fcntl.flock(self._lock_file, fcntl.LOCK_UN)
                self._lock_file.close()

    # ------------------------------------------------------------------ reads
    def count(self, collection_name: str, count_filter: qe.Filter | None = None, exact: bool = True) -> EdgeCount:
        return EdgeCount(self._shard(collection_name).count(qe.CountRequest(exact=exact, filter=count_filter)))

    def facet(
        self,
        collection_name: str,
        key: str,
        facet_filter: qe.Filter | None = None,
        limit: int = 10,
        exact: bool = False,
        **_: Any,
    ) -> EdgeFacet:
        """Points per value of an indexed keyword field, most first (qdrant-client's ``facet``)."""
        request = qe.FacetRequest(key=key, limit=limit, exact=exact, filter=facet_filter)
        hits = self._shard(collection_name).facet(request).hits
        return EdgeFacet([EdgeFacetHit(h.value, h.count) for h in hits])

    def scroll(
        self,
        collection_name: str,
        scroll_filter: qe.Filter | None = None,
        limit: int = 10,
        offset: Any = None,
        with_payload: bool | Sequence[str] = True,
        with_vectors: bool | Sequence[str] = False,
        **_: Any,
    ) -> tuple[list[EdgePoint], str | None]:
        request = qe.ScrollRequest(
            offset=offset,
            limit=limit,
            filter=scroll_filter,
            with_payload=selector(with_payload),
            with_vector=selector(with_vectors),
        )
        points, next_offset = self._shard(collection_name).scroll(request)
        return [record(p) for p in points], None if next_offset is None else str(next_offset)

    def retrieve(
        self,
        collection_name: str,
        ids: Sequence[Any],
        with_payload: bool | Sequence[str] = True,
        with_vectors: bool | Sequence[str] = False,
        **_: Any,
    ) -> list[EdgePoint]:
        found = self._shard(collection_name).retrieve(
            edge_ids(ids), with_payload=selector(with_payload), with_vector=selector(with_vectors)
        )
        return [record(p) for p in found]

    def query_points(
        self,
        collection_name: str,
        query: Sequence[float] | qe.SparseVector,
        using: str | None = None,
        query_filter: qe.Filter | None = None,
        limit: int = 10,
        offset: int | None = None,
        with_payload: bool | Sequence[str] = True,
        with_vectors: bool | Sequence[str] = False,
        score_threshold: float | None = None,
        search_params: qe.SearchParams | None = None,
        **_: Any,
    ) -> EdgeResponse:
        target: Any = query if isinstance(query, qe.SparseVector) else [float(x) for x in query]
        request = qe.QueryRequest(
            limit=limit,
            offset=offset,
            query=qe.Query.Nearest(target, using=using),
            filter=query_filter,
            with_payload=selector(with_payload),
            with_vector=selector(with_vectors),
            score_threshold=score_threshold,
            params=search_params,
        )
        return EdgeResponse([scored(p) for p in self._shard(collection_name).query(request)])

    # ------------------------------------------------------------------ writes
    def upsert(self, collection_name: str, points: Sequence[qe.Point], **_: Any) -> None:
        self._writable(collection_name).update(qe.UpdateOperation.upsert_points(list(points)))

    def update_vectors(self, collection_name: str, points: Sequence[qe.PointVectors], **_: Any) -> None:
        """Set these named vectors of existing points (the others stay)."""
        self._writable(collection_name).update(qe.UpdateOperation.update_vectors(list(points)))

    def delete(self, collection_name: str, points_selector: qe.Filter | Sequence[Any], **_: Any) -> None:
        """Delete the points a filter selects, or the points of a list of ids."""
        if isinstance(points_selector, qe.Filter):
            operation = qe.UpdateOperation.delete_points_by_filter(points_selector)
        else:
            operation = qe.UpdateOperation.delete_points(edge_ids(points_selector))
        self._writable(collection_name).update(operation)

    def set_payload(self, collection_name: str, payload: dict[str, Any], points: Sequence[Any], **_: Any) -> None:
        self._writable(collection_name).update(qe.UpdateOperation.set_payload(edge_ids(points), payload))

    def delete_payload(self, collection_name: str, keys: Sequence[str], points: qe.Filter | Sequence[Any]) -> None:
        """Remove these payload keys from the points a filter selects (``qe.Filter()``: all), or of a list of ids."""
        if isinstance(points, qe.Filter):
            operation = qe.UpdateOperation.delete_payload_by_filter(points, list(keys))
        else:
            operation = qe.UpdateOperation.delete_payload(edge_ids(points), list(keys))
        self._writable(collection_name).update(operation)

    def batch_update_points(self, collection_name: str, update_operations: Sequence[Operation], **_: Any) -> None:
        """The operations in order, under the shard's one writer (a reader in this process may see a
        document's new chunks before its leftovers go, never the document missing)."""
        shard = self._writable(collection_name)
        for op in update_operations:
            if isinstance(op, Upsert):
                shard.update(qe.UpdateOperation.upsert_points(op.points))
            elif isinstance(op, DeleteWhere):
                shard.update(qe.UpdateOperation.delete_points_by_filter(op.filter))
            elif isinstance(op, SetPayload):
                shard.update(qe.UpdateOperation.set_payload(edge_ids(op.ids), op.payload))
            else:
                raise TypeError(f"the Edge store does not take {type(op).__name__} in a batch")
