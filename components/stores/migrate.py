"""`rag migrate`: copy an embedded store written by qdrant-client's local mode into Qdrant Edge.

Earlier versions kept the embedded store in local mode's files (``QDRANT_PATH/collection/``).
The Edge store lives beside them (``QDRANT_PATH/edge/``), so both can be open at once and the
copy moves every point as it is: vectors, payloads, ids and the collection's metadata,
version included. Nothing is embedded again; a chunk collection's BM25 term weights are
computed from its stored texts (components/stores/lexical.py).

A collection is copied under a staging name and renamed when complete, so an interrupted
migration leaves no half-copied collection behind; running it again starts that collection over.
Collections the Edge store already has are left alone. Local mode's files stay where they
were (``QDRANT_ENGINE=local`` still reads them) until the user removes them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from qdrant_client import models

from components.stores.edge import EdgeClient
from components.stores.lexical import LexicalIndex
from components.stores.points import INDEXED
from components.stores.qdrant import QdrantIndex
from components.text.tokenizer import Tokenizer

log = logging.getLogger(__name__)

BATCH = 512
"""Points per read and write: a few MB of vectors and payloads at a time."""
STAGING = "__migrating"
"""Suffix of a collection being copied (not a valid name for `rag ingest`'s collections to clash with)."""

COMPANION = "__"
"""What a companion collection's name holds (``<collection>__sentences``, ``__examples``): no BM25 side."""
Progress = Callable[[str, int, int], None]
"""(collection, points copied, points in it)."""


@dataclass(frozen=True)
class Copied:
    collection: str
    points: int
    seconds: float
    skipped: bool = False
    """True when the Edge store already had the collection."""


def local_collections(path: Path) -> list[str]:
    """Names of the collections local mode's files hold at ``path`` (without opening them)."""
    folder = path / "collection"
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def migrate(path: Path, *, progress: Progress | None = None) -> list[Copied]:
    """Copy every local-mode collection at ``path`` into the Edge store at the same path."""
    names = local_collections(path)
    if not names:
        return []
    source = QdrantIndex(collection=names[0], path=path, engine="local")
    target = QdrantIndex(collection=names[0], path=path, engine="edge")
    try:
        local, edge = source.client, target.client
        assert isinstance(edge, EdgeClient)
        return [_copy(local, edge, name, progress) for name in names]
    finally:
        source.close()
        target.close()


def _copy(local: Any, edge: EdgeClient, name: str, progress: Progress | None) -> Copied:
    t0 = time.perf_counter()
    if edge.collection_exists(name):
        log.info("%s: already in the Edge store, left alone", name)
        return Copied(name, edge.count(name).count, 0.0, skipped=True)
    info = local.get_collection(name)
    vectors = info.config.params.vectors
    if not isinstance(vectors, dict):  # every collection this project writes names its vectors
        raise ValueError(f"collection {name!r} has an unnamed vector; it was not written by `rag ingest`")
    total = int(local.count(name, exact=True).count)
    staging = name + STAGING
    edge.delete_collection(staging)  # what an interrupted run left
    sparse = dict(info.config.params.sparse_vectors or {})
    edge.create_collection(
        staging, vectors_config=vectors, sparse_vectors_config=sparse, metadata=dict(info.config.metadata or {})
    )
    for field, kind in INDEXED.items():
        edge.create_payload_index(staging, field, field_schema=kind)
    done, offset = 0, None
    if progress is not None:
        progress(name, 0, total)
    while True:
        points, offset = local.scroll(name, limit=BATCH, offset=offset, with_payload=True, with_vectors=True)
        if points:
            edge.upsert(
                staging,
                points=[models.PointStruct(id=p.id, vector=p.vector, payload=p.payload) for p in points],
            )
            done += len(points)
            if progress is not None:
                progress(name, done, total)
        if offset is None:
            break
    if COMPANION not in name and not sparse:  # a chunk collection without BM25's term weights: add them
        LexicalIndex(QdrantIndex(collection=staging, path=edge.root.parent, client=edge), Tokenizer()).backfill()
    edge.optimize(staging)
    edge.rename_collection(staging, name)
    seconds = time.perf_counter() - t0
    log.info("%s: %d points copied in %.1fs", name, done, seconds)
    return Copied(name, done, seconds)
