"""`rag migrate`: bring an embedded store an earlier version wrote up to this version's layout.

Earlier versions kept the embedded store in qdrant-client local mode's files
(``QDRANT_PATH/collection/``). The Edge store lives beside them (``QDRANT_PATH/edge/``), so both
can be open at once and the copy moves every point as it is: vectors, payloads, ids and the
collection's metadata, version included. Nothing is embedded again.

Lexical search reads each chunk's BM25 term weights from the store (components/stores/lexical.py).
A chunk collection without them (copied from local mode, or made by an Edge version before them),
or with weights another tokenizer made, gets them here, computed from its stored texts; queries
and ingestion refuse such a collection and name this command.

A collection is copied under a staging name and renamed when complete, so an interrupted
migration leaves no half-copied collection behind; running it again starts that collection over.
Collections the Edge store already has are not copied again. Local mode's files stay where they
were (``QDRANT_ENGINE=local`` still reads them) until the user removes them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from components.stores.connection import StoreConnection
from components.stores.edge import EdgeClient, edge_root
from components.stores.edge_models import point
from components.stores.lexical import (
    META_KEY,
    SPARSE,
    LexicalIndex,
    LexicalParams,
    document_vector,
    search_text,
    sparse_config,
)
from components.stores.points import INDEXED
from components.stores.qdrant import QdrantIndex
from components.stores.server_client import sparse_spec, vector_spec
from components.text.tokenizer import Tokenizer

log = logging.getLogger(__name__)

BATCH = 512
"""Points per read and write: a few MB of vectors and payloads at a time."""
STAGING = "__migrating"
"""Suffix of a collection being copied (not a valid name for `rag ingest`'s collections to clash with)."""

COMPANION = "__"
"""What a companion collection's name holds (``<collection>__sentences``, ``__examples``): no BM25 side."""
Progress = Callable[[str, int, int], None]
"""(collection, points copied or weighted, points in it)."""


@dataclass(frozen=True)
class Copied:
    collection: str
    points: int
    seconds: float
    skipped: bool = False
    """True when the Edge store already had the collection."""
    weighted: int = 0
    """Chunks given BM25's term weights, computed from their stored texts."""


def local_collections(path: Path) -> list[str]:
    """Names of the collections local mode's files hold at ``path`` (without opening them)."""
    folder = path / "collection"
    return sorted(p.name for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def migrate(path: Path, *, progress: Progress | None = None) -> list[Copied]:
    """Copy every local-mode collection at ``path`` into the Edge store at the same path, then give
    every chunk collection of the Edge store whose BM25 term weights are missing or another
    tokenizer's its weights. What was done, per collection; nothing for a store already current."""
    names = local_collections(path)
    if not names and not edge_root(path).is_dir():
        return []
    source = StoreConnection(path=path, engine="local")
    target = StoreConnection(path=path, engine="edge")
    try:
        edge = target.client
        assert isinstance(edge, EdgeClient)
        done = {name: _copy(source.client, edge, name, progress) for name in names}
        tokenizer = Tokenizer()
        for name in edge.collection_names():
            index = QdrantIndex(collection=name, path=path, client=edge)
            if COMPANION in name or LexicalIndex(index, tokenizer).outdated() is None:
                continue
            t0 = time.perf_counter()
            weighted = weigh(index, tokenizer, progress=progress)
            edge.optimize(name)
            before = done.get(name) or Copied(name, edge.count(name).count, 0.0, skipped=True)
            done[name] = replace(before, seconds=before.seconds + time.perf_counter() - t0, weighted=weighted)
            log.info("%s: %d chunks given BM25 term weights", name, weighted)
        return list(done.values())
    finally:
        source.close()
        target.close()


def weigh(index: QdrantIndex, tokenizer: Tokenizer, *, progress: Progress | None = None, batch: int = BATCH) -> int:
    """Give every stored chunk of an Edge collection its BM25 term weights, computed from its stored
    texts with ``tokenizer`` (replacing any it had); how many chunks were weighted."""
    client = index.client
    if not isinstance(client, EdgeClient):
        raise ValueError("only the embedded store can add a sparse vector to an existing collection")
    texts: dict[str, list[str]] = {}
    for p in index.scroll(fields=True):
        texts[str(p.id)] = tokenizer(search_text(dict(p.payload or {})))
    params = LexicalParams.measured(texts.values(), tokenizer.signature)
    if SPARSE not in index.sparse_vectors():
        client.create_sparse_vector(index.collection, SPARSE, sparse_config()[SPARSE])
    ids = list(texts)
    for start in range(0, len(ids), batch):
        part = ids[start : start + batch]
        index.set_vectors(SPARSE, {i: document_vector(texts[i], params) for i in part})
        if progress is not None:
            progress(f"{index.collection} (BM25 weights)", min(start + batch, len(ids)), len(ids))
    index.update_metadata(**{META_KEY: params.to_meta()})
    return len(ids)


def _copy(local: Any, edge: EdgeClient, name: str, progress: Progress | None) -> Copied:
    t0 = time.perf_counter()
    if edge.collection_exists(name):
        log.info("%s: already in the Edge store, not copied again", name)
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
        staging,
        vectors_config={n: vector_spec(p) for n, p in vectors.items()},
        sparse_vectors_config={n: sparse_spec(p) for n, p in sparse.items()},
        metadata=dict(info.config.metadata or {}),
    )
    for field, kind in INDEXED.items():
        edge.create_payload_index(staging, field, field_schema=kind)
    done, offset = 0, None
    if progress is not None:
        progress(name, 0, total)
    while True:
        points, offset = local.scroll(name, limit=BATCH, offset=offset, with_payload=True, with_vectors=True)
        if points:
            edge.upsert(staging, points=[point(p.id, p.vector, p.payload) for p in points])
            done += len(points)
            if progress is not None:
                progress(name, done, total)
        if offset is None:
            break
    weighted = 0
    if COMPANION not in name and not sparse:  # a chunk collection without BM25's term weights: add them
        weighted = weigh(QdrantIndex(collection=staging, path=edge.root.parent, client=edge), Tokenizer())
    edge.optimize(staging)
    edge.rename_collection(staging, name)
    seconds = time.perf_counter() - t0
    log.info("%s: %d points copied in %.1fs", name, done, seconds)
    return Copied(name, done, seconds, weighted=weighted)
