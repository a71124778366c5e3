"""Dense retrieval: the query's embedding against the chunk vectors in Qdrant, filters applied there."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import qdrant_edge as qe

from components.models.embedders import Embedder
from components.retrieval.filters import SearchFilters
from components.retrieval.hits import Hit
from components.stores.qdrant import QdrantIndex


def dense_search(
    index: QdrantIndex,
    embedder: Embedder,
    queries: list[str],
    filters: SearchFilters,
    *,
    limit: int,
    fields: Sequence[str] | None = None,
) -> tuple[list[list[Hit]], dict[str, float]]:
    """Per query, the top chunks by cosine similarity inside Qdrant (filter applied there);
    ``fields`` (e.g. ``LISTED``) names the payload keys to return, all of them by default."""
    t0 = time.perf_counter()
    vectors = embedder.encode_queries(queries)
    t1 = time.perf_counter()
    qfilter = filters.to_qdrant()
    selector: bool | list[str] = list(fields) if fields else True
    out = []
    for v in vectors:
        points = index.search(v, limit=limit, query_filter=qfilter, with_payload=selector)
        out.append([Hit(str(p.id), float(p.score), dict(p.payload or {})) for p in points])
    t2 = time.perf_counter()
    return out, {"query_embedding": (t1 - t0) * 1000, "dense": (t2 - t1) * 1000}


def _document(doc_id: str, within: qe.Filter | None) -> qe.Filter:
    """The chunks of ``doc_id`` that ``within`` (the caller's access restriction) lets them see."""
    must: list[Any] = [qe.FieldCondition(key="doc_id", match=qe.MatchValue(doc_id))]
    if within is not None:
        must.append(within)
    return qe.Filter(must=must)


def has_document(index: QdrantIndex, doc_id: str, *, within: qe.Filter | None = None) -> bool:
    """Whether ``doc_id`` has a chunk in the index that ``within`` (the caller's access) lets them see."""
    points, _ = index.client.scroll(
        index.collection, limit=1, with_vectors=False, with_payload=False, scroll_filter=_document(doc_id, within)
    )
    return bool(points)


def similar_vector(index: QdrantIndex, doc_id: str, *, within: qe.Filter | None = None) -> np.ndarray | None:
    """The mean of a document's chunk vectors (to find documents like it); None when it is not
    indexed, or not visible through ``within`` (the caller's access restriction)."""
    points, _ = index.client.scroll(
        index.collection,
        limit=10_000,
        with_vectors=True,
        with_payload=False,
        scroll_filter=_document(doc_id, within),
    )
    if not points:
        return None
    vecs = np.asarray([p.vector["dense"] if isinstance(p.vector, dict) else p.vector for p in points], dtype=np.float32)
    v = vecs.mean(axis=0)
    return v / (np.linalg.norm(v) or 1.0)  # type: ignore[no-any-return]


def similar_search(
    index: QdrantIndex, doc_id: str, filters: SearchFilters, *, limit: int
) -> tuple[list[list[Hit]], dict[str, float]] | None:
    """Chunks closest to ``doc_id``'s mean vector, the document itself excluded; None when it is not indexed."""
    t0 = time.perf_counter()
    # a document outside the caller's access groups is "not indexed": its vectors are not read
    vec = similar_vector(index, doc_id, within=filters.access_only().to_qdrant())
    if vec is None:
        return None
    chosen = filters.to_qdrant()
    itself: list[Any] = [qe.FieldCondition(key="doc_id", match=qe.MatchValue(doc_id))]
    qf = qe.Filter(must=chosen.must if chosen is not None else None, must_not=itself)
    points = index.search(vec, limit=limit, query_filter=qf)
    hits = [Hit(str(p.id), float(p.score), dict(p.payload or {})) for p in points]
    return [hits], {"dense": (time.perf_counter() - t0) * 1000}
