"""The store's vocabulary: Qdrant Edge's own types, and the few shapes the store layer adds to them.

Code above the store builds filters, points and sparse vectors with Qdrant Edge's types
(``qdrant_edge``: ``Filter``, ``FieldCondition``, ``MatchAny``, ``Point``, ``SparseVector`` ...),
which import in milliseconds; the embedded store takes them as they are. A Qdrant server is
reached through qdrant-client, whose model types take most of a second to import (pydantic
builds some 340 models), so only ``components/stores/server_client.py`` translates to them, and
a one-shot command on the embedded store never imports qdrant-client.

Added here: what a collection is declared with (``VectorSpec``, ``SparseSpec``), the operations
of one batched write (``Upsert``, ``DeleteWhere``, ``SetPayload``), and what Edge's reads answer
with, carrying the attributes of qdrant-client's answers that callers read (``EdgePoint``,
``EdgeResponse``, ``EdgeCount``, ``EdgeFacet``, ``EdgeCollectionInfo``), so that the code above
the store reads a server's answers and the embedded store's alike.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import qdrant_edge as qe

# Each payload-index kind, by Qdrant's schema name: Edge's type (to report the index back by its
# name) and the parameters it is created with. Payload indexes and the sparse (BM25)
# index are memory-mapped: a process that opens the store reads the pages its queries touch. Held in
# RAM, each is read whole at every open, which grows with the store (at 1M chunks the BM25 index
# alone took 0.47 s of a 1.8 s open), and a one-shot command opens it each time. HNSW links and dense
# vectors stay as Edge places them (cold vectors searched 9x slower; decision 0018).
_INDEX_KINDS: dict[str, tuple[qe.PayloadSchemaType, Callable[[], Any]]] = {
    "keyword": (qe.PayloadSchemaType.Keyword, lambda: qe.KeywordIndexParams(on_disk=True)),
    "integer": (
        qe.PayloadSchemaType.Integer,
        lambda: qe.IntegerIndexParams(lookup=True, range=True, on_disk=True),
    ),
    "float": (qe.PayloadSchemaType.Float, lambda: qe.FloatIndexParams(on_disk=True)),
    "bool": (qe.PayloadSchemaType.Bool, lambda: qe.BoolIndexParams(on_disk=True)),
    "datetime": (qe.PayloadSchemaType.Datetime, lambda: qe.DatetimeIndexParams(on_disk=True)),
    "text": (qe.PayloadSchemaType.Text, lambda: qe.TextIndexParams(on_disk=True)),
    "uuid": (qe.PayloadSchemaType.Uuid, lambda: qe.UuidIndexParams(on_disk=True)),
}
SCHEMA_NAME = {kind: name for name, (kind, _) in _INDEX_KINDS.items()}
"""Qdrant's schema name ("keyword", ...) of each Edge payload-index type."""
DISTANCE = {
    "Dot": qe.Distance.Dot,
    "Cosine": qe.Distance.Cosine,
    "Euclid": qe.Distance.Euclid,
    "Manhattan": qe.Distance.Manhattan,
}
"""Edge's distance of each of Qdrant's distance names."""


@dataclass(frozen=True)
class VectorSpec:
    """A dense vector a collection declares: its size and Qdrant's distance name ("Dot", "Cosine" ...)."""

    size: int
    distance: str = "Dot"


@dataclass(frozen=True)
class SparseSpec:
    """A sparse vector a collection declares; ``modifier`` "idf" has the engine weigh terms by IDF."""

    modifier: str | None = "idf"


def index_params(kind: str) -> Any:
    """Edge's parameters for a payload index of a Qdrant schema name ("keyword", ...)."""
    return _INDEX_KINDS[kind][1]()


def sparse_params(p: SparseSpec) -> qe.EdgeSparseVectorParams:
    """Edge's parameters for a declared sparse vector."""
    if p.modifier not in (None, "none", "idf"):
        raise TypeError(f"the Edge store has no sparse modifier {p.modifier!r}")
    modifier = qe.Modifier.Idf if p.modifier == "idf" else None
    return qe.EdgeSparseVectorParams(modifier=modifier, on_disk=True)  # memory-mapped: see _INDEX_KINDS


# ---------------------------------------------------------------------- one batched write
@dataclass(frozen=True)
class Upsert:
    """Write these points (overwriting any at their ids)."""

    points: list[qe.Point]


@dataclass(frozen=True)
class DeleteWhere:
    """Delete the points that pass ``filter``."""

    filter: qe.Filter


@dataclass(frozen=True)
class SetPayload:
    """Set these keys of these points' payloads (the other keys stay)."""

    payload: dict[str, Any]
    ids: list[Any]


Operation = Upsert | DeleteWhere | SetPayload
"""One operation of ``batch_update_points``: a server runs them as one request, Edge in order."""


# ---------------------------------------------------------------------- ids and selectors
def edge_id(point_id: Any) -> Any:
    """Ids as Edge takes them: integers, or UUIDs (the store's ids are UUID strings)."""
    if isinstance(point_id, int):
        return point_id
    return uuid.UUID(str(point_id))


def edge_ids(ids: Sequence[Any]) -> list[Any]:
    return [edge_id(i) for i in ids]


def selector(value: bool | Sequence[str] | None) -> Any:
    """A ``with_payload``/``with_vectors`` argument as Edge takes it: a list of names, or a flag."""
    return list(value) if isinstance(value, (list, tuple)) else bool(value)


def point(point_id: Any, vector: dict[str, Any], payload: dict[str, Any] | None = None) -> qe.Point:
    """A point with named vectors, at a UUID string's or an integer's id."""
    return qe.Point(id=edge_id(point_id), vector={k: edge_vector(v) for k, v in vector.items()}, payload=payload)


def edge_vector(v: Any) -> Any:
    """A vector as Edge takes it: a dense list, or a ``qe.SparseVector`` (also made from a sparse
    vector read back, Edge's ``StoredSparse`` or a server's, which have its indices and values)."""
    if isinstance(v, qe.SparseVector):
        return v
    if hasattr(v, "indices"):
        return qe.SparseVector(indices=list(v.indices), values=list(v.values))
    return list(v)


def filter_json(f: qe.Filter) -> dict[str, Any]:
    """A filter as Qdrant's REST API writes it (``{"must": [{"key": ..., "match": {"any": [...]}}]}``):
    what ``--debug`` shows, and what a server's own tools take."""
    out: dict[str, Any] = {}
    for part in ("must", "should", "must_not"):
        conds = getattr(f, part)
        if conds is not None:
            out[part] = [_condition_json(c) for c in conds]
    if f.min_should is not None:
        ms = f.min_should
        out["min_should"] = {"conditions": [_condition_json(c) for c in ms.conditions], "min_count": ms.min_count}
    return out


def _condition_json(c: Any) -> dict[str, Any]:
    if isinstance(c, qe.Filter):
        return filter_json(c)
    if isinstance(c, qe.IsEmptyCondition):
        return {"is_empty": {"key": c.key}}
    if isinstance(c, qe.IsNullCondition):
        return {"is_null": {"key": c.key}}
    if isinstance(c, qe.HasIdCondition):  # integer ids stay integers, UUIDs are written as strings
        return {"has_id": sorted((i if isinstance(i, int) else str(i) for i in c.point_ids), key=str)}
    if isinstance(c, qe.FieldCondition):
        if c.match is not None:
            return {"key": c.key, "match": _match_json(c.match)}
        if c.range is not None:
            bounds = {k: getattr(c.range, k) for k in ("gte", "gt", "lte", "lt")}
            if isinstance(c.range, qe.RangeDateTime):
                bounds = {k: _rfc3339(v) for k, v in bounds.items()}
            return {"key": c.key, "range": {k: v for k, v in bounds.items() if v is not None}}
    raise TypeError(f"no JSON for the filter condition {c!r}")


def _rfc3339(v: str | None) -> str | None:
    """A date-time bound as Edge reads it back (``2024-01-01 00:00:00 UTC``) in RFC 3339, as Qdrant
    writes it (``2024-01-01T00:00:00Z``)."""
    if v is None:
        return None
    return datetime.fromisoformat(v.replace(" UTC", "+00:00")).isoformat().replace("+00:00", "Z")


def _match_json(m: Any) -> dict[str, Any]:
    if isinstance(m, qe.MatchValue):
        return {"value": m.value}
    if isinstance(m, qe.MatchAny):
        return {"any": list(m.value)}
    if isinstance(m, qe.MatchExcept):
        return {"except": list(m.value)}
    if isinstance(m, qe.MatchText):
        return {"text": m.text}
    if isinstance(m, qe.MatchSubstring):
        return {"substring": m.substring}
    raise TypeError(f"no JSON for the match {m!r}")


# ---------------------------------------------------------------------- back to the callers
@dataclass(frozen=True, slots=True)
class EdgePoint:
    """A point Edge read, with the attributes of qdrant-client's ``Record`` and ``ScoredPoint`` that
    callers read (langchain-qdrant's ``QdrantVectorStore`` too). A plain class: building pydantic
    models cost more than Edge's search (500 candidates: 2.4 ms against 3.9 ms for the search)."""

    id: str
    payload: dict[str, Any] | None
    vector: Any = None
    score: float = 0.0
    version: int = 0


@dataclass(frozen=True, slots=True)
class EdgeResponse:
    """``query_points``' answer: qdrant-client's ``QueryResponse`` has the same ``points``."""

    points: list[EdgePoint]


def record(p: Any) -> EdgePoint:
    return EdgePoint(str(p.id), p.payload, read_vectors(p.vector))


def scored(p: Any) -> EdgePoint:
    return EdgePoint(str(p.id), p.payload, read_vectors(p.vector), p.score, p.version)


@dataclass(frozen=True, slots=True)
class StoredSparse:
    """A sparse vector read back: the ``indices`` and ``values`` of qdrant-client's ``SparseVector``,
    and equal to another with the same (Edge's own type compares by identity)."""

    indices: list[int]
    values: list[float]


def read_vectors(vector: Any) -> Any:
    """Edge's named vectors as callers read them: dense lists, sparse ones as ``StoredSparse``."""
    if not isinstance(vector, dict):
        return vector
    return {
        k: StoredSparse(list(v.indices), list(v.values)) if isinstance(v, qe.SparseVector) else v
        for k, v in vector.items()
    }


@dataclass(frozen=True, slots=True)
class EdgeCount:
    """``count``'s answer (qdrant-client's ``CountResult``)."""

    count: int


@dataclass(frozen=True, slots=True)
class EdgeFacetHit:
    value: Any
    count: int


@dataclass(frozen=True, slots=True)
class EdgeFacet:
    """``facet``'s answer (qdrant-client's ``FacetResponse``)."""

    hits: list[EdgeFacetHit]


@dataclass(frozen=True, slots=True)
class EdgeIndexInfo:
    """A payload index: its Qdrant schema name and how many points it holds."""

    data_type: str
    points: int


@dataclass(frozen=True, slots=True)
class EdgeParams:
    vectors: dict[str, VectorSpec]
    sparse_vectors: dict[str, SparseSpec] | None


@dataclass(frozen=True, slots=True)
class EdgeConfig:
    params: EdgeParams
    metadata: dict[str, Any]


class EdgeCollectionInfo:
    """``get_collection``'s answer, with the attributes of qdrant-client's ``CollectionInfo`` that
    callers read (``config.params``, ``config.metadata``, ``payload_schema``, ``points_count``).

    The configuration comes from the collection's metadata file; what only the shard knows (counts,
    payload indexes) is read from it when first asked, so reading a collection's metadata does not
    open its shard (a companion of 45k sentence vectors takes 0.2 s to open)."""

    def __init__(self, config: EdgeConfig, shard_info: Callable[[], Any]) -> None:
        self.config = config
        self._shard_info = shard_info

    @functools.cached_property
    def _info(self) -> Any:
        return self._shard_info()

    @property
    def points_count(self) -> int:
        return int(self._info.points_count)

    @property
    def indexed_vectors_count(self) -> int:
        return int(self._info.indexed_vectors_count)

    @property
    def segments_count(self) -> int:
        return int(self._info.segments_count)

    @property
    def payload_schema(self) -> dict[str, EdgeIndexInfo]:
        return {
            field: EdgeIndexInfo(SCHEMA_NAME[i.data_type], i.points) for field, i in self._info.payload_schema.items()
        }
