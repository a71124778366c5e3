"""A Qdrant server (or qdrant-client's local mode) behind the calls the embedded store answers.

The store layer speaks Qdrant Edge's types (``components/stores/edge_models.py``); qdrant-client
speaks its own pydantic models, which take most of a second to import. ``ServerClient`` takes
the calls ``EdgeClient`` takes, translates their arguments into qdrant-client's models and hands
them to a ``QdrantClient``; a server's answers already have the attributes callers read. The
translation the other way (``edge_filter``, ``vector_spec``) serves the callers that hold
qdrant-client's models: `rag migrate` reading local mode's files, and filters a LangChain user
gives langchain-qdrant's ``QdrantVectorStore``. A condition or match the other side cannot
express fails loudly, never matches silently.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import qdrant_edge as qe
from qdrant_client import QdrantClient, models

from components.stores.edge_models import (
    DeleteWhere,
    Operation,
    SetPayload,
    SparseSpec,
    Upsert,
    VectorSpec,
    edge_id,
    filter_json,
)


class ServerClient:
    """A ``QdrantClient`` answering the store's calls (``raw`` is the client itself)."""

    def __init__(self, raw: QdrantClient) -> None:
        self.raw = raw

    # ------------------------------------------------------------------ collections
    def collection_exists(self, collection_name: str) -> bool:
        return bool(self.raw.collection_exists(collection_name))

    def collection_names(self) -> list[str]:
        return sorted(c.name for c in self.raw.get_collections().collections)

    def get_collection(self, collection_name: str) -> models.CollectionInfo:
        return self.raw.get_collection(collection_name)

    def create_collection(
        self,
        collection_name: str,
        vectors_config: dict[str, VectorSpec],
        metadata: dict[str, Any] | None = None,
        sparse_vectors_config: dict[str, SparseSpec] | None = None,
        **server: Any,
    ) -> bool:
        return bool(
            self.raw.create_collection(
                collection_name,
                vectors_config={n: vector_params(p) for n, p in vectors_config.items()},
                sparse_vectors_config={n: sparse_vector_params(p) for n, p in (sparse_vectors_config or {}).items()}
                or None,
                metadata=metadata,
                **server,
            )
        )

    def create_payload_index(self, collection_name: str, field_name: str, field_schema: str, **kwargs: Any) -> None:
        self.raw.create_payload_index(
            collection_name, field_name, field_schema=models.PayloadSchemaType(field_schema), **kwargs
        )

    def update_collection(self, collection_name: str, metadata: dict[str, Any] | None = None, **kwargs: Any) -> bool:
        return bool(self.raw.update_collection(collection_name, metadata=metadata, **kwargs))

    def delete_collection(self, collection_name: str) -> bool:
        return bool(self.raw.delete_collection(collection_name))

    def close(self) -> None:
        self.raw.close()

    # ------------------------------------------------------------------ reads
    def count(self, collection_name: str, count_filter: qe.Filter | None = None, exact: bool = True) -> Any:
        return self.raw.count(collection_name, count_filter=client_filter(count_filter), exact=exact)

    def facet(self, collection_name: str, key: str, facet_filter: qe.Filter | None = None, **kwargs: Any) -> Any:
        return self.raw.facet(collection_name, key=key, facet_filter=client_filter(facet_filter), **kwargs)

    def scroll(self, collection_name: str, scroll_filter: qe.Filter | None = None, **kwargs: Any) -> Any:
        return self.raw.scroll(collection_name, scroll_filter=client_filter(scroll_filter), **kwargs)

    def retrieve(self, collection_name: str, ids: Sequence[Any], **kwargs: Any) -> Any:
        return self.raw.retrieve(collection_name, ids=list(ids), **kwargs)

    def query_points(
        self,
        collection_name: str,
        query: Sequence[float] | qe.SparseVector,
        query_filter: qe.Filter | None = None,
        search_params: qe.SearchParams | None = None,
        **kwargs: Any,
    ) -> Any:
        target: Any = client_sparse(query) if isinstance(query, qe.SparseVector) else list(query)
        params = None
        if search_params is not None:
            params = models.SearchParams(hnsw_ef=search_params.hnsw_ef, exact=search_params.exact)
        return self.raw.query_points(
            collection_name, query=target, query_filter=client_filter(query_filter), search_params=params, **kwargs
        )

    # ------------------------------------------------------------------ writes
    def upsert(self, collection_name: str, points: Sequence[qe.Point], **kwargs: Any) -> None:
        self.raw.upsert(collection_name, points=[client_point(p) for p in points], **kwargs)

    def update_vectors(self, collection_name: str, points: Sequence[qe.PointVectors], **kwargs: Any) -> None:
        vectors = [models.PointVectors(id=client_id(p.id), vector=client_vectors(p.vector)) for p in points]
        self.raw.update_vectors(collection_name, points=vectors, **kwargs)

    def delete(self, collection_name: str, points_selector: qe.Filter | Sequence[Any], **kwargs: Any) -> None:
        self.raw.delete(collection_name, points_selector=client_selector(points_selector), **kwargs)

    def set_payload(self, collection_name: str, payload: dict[str, Any], points: Sequence[Any], **kwargs: Any) -> None:
        self.raw.set_payload(collection_name, payload=payload, points=[client_id(i) for i in points], **kwargs)

    def delete_payload(self, collection_name: str, keys: Sequence[str], points: qe.Filter | Sequence[Any]) -> None:
        self.raw.delete_payload(collection_name, keys=list(keys), points=client_selector(points), wait=True)

    def batch_update_points(self, collection_name: str, update_operations: Sequence[Operation], **kwargs: Any) -> None:
        """The operations as one request: a reader never sees a document missing or twice."""
        self.raw.batch_update_points(
            collection_name, update_operations=[client_operation(o) for o in update_operations], **kwargs
        )


# ---------------------------------------------------------------------- into qdrant-client's models
def vector_params(p: VectorSpec) -> models.VectorParams:
    return models.VectorParams(size=p.size, distance=models.Distance(p.distance))


def sparse_vector_params(p: SparseSpec) -> models.SparseVectorParams:
    return models.SparseVectorParams(modifier=models.Modifier.IDF if p.modifier == "idf" else None)


def client_id(point_id: Any) -> Any:
    """Ids as qdrant-client takes them: integers, or UUIDs as strings."""
    return point_id if isinstance(point_id, int) else str(point_id)


def client_sparse(v: Any) -> models.SparseVector:
    return models.SparseVector(indices=list(v.indices), values=list(v.values))


def client_vectors(vector: Any) -> dict[str, Any]:
    """Named vectors in qdrant-client's types: dense lists as they are, sparse ones (Edge's, or read
    from a server) as ``models.SparseVector``."""
    return {k: client_sparse(v) if hasattr(v, "indices") else list(v) for k, v in vector.items()}


def client_point(p: qe.Point) -> models.PointStruct:
    return models.PointStruct(id=client_id(p.id), vector=client_vectors(p.vector), payload=p.payload)


def client_selector(selected: qe.Filter | Sequence[Any]) -> models.FilterSelector | models.PointIdsList:
    if isinstance(selected, qe.Filter):
        return models.FilterSelector(filter=client_filter(selected) or models.Filter())
    return models.PointIdsList(points=[client_id(i) for i in selected])


def client_operation(op: Operation) -> Any:
    if isinstance(op, Upsert):
        return models.UpsertOperation(upsert=models.PointsList(points=[client_point(p) for p in op.points]))
    if isinstance(op, DeleteWhere):
        return models.DeleteOperation(delete=client_selector(op.filter))
    if isinstance(op, SetPayload):
        ids = [client_id(i) for i in op.ids]
        return models.SetPayloadOperation(set_payload=models.SetPayload(payload=op.payload, points=ids))
    raise TypeError(f"no qdrant-client operation for {op!r}")


def client_filter(f: qe.Filter | None) -> models.Filter | None:
    """The same filter in qdrant-client's models, parsed from Qdrant's REST form of it (the JSON
    ``--debug`` shows): one walk over Edge's filter serves both, and a condition it cannot write
    fails loudly there."""
    return None if f is None else models.Filter.model_validate(filter_json(f))


# ---------------------------------------------------------------------- from qdrant-client's models
def vector_spec(p: models.VectorParams) -> VectorSpec:
    return VectorSpec(size=p.size, distance=p.distance.value)


def sparse_spec(p: models.SparseVectorParams) -> SparseSpec:
    return SparseSpec("idf" if p.modifier == models.Modifier.IDF else None)


def edge_filter(f: models.Filter | qe.Filter | None) -> qe.Filter | None:
    """The same filter in Edge's types (one already in them as it is); an unknown condition fails
    loudly, never matches silently."""
    if f is None or isinstance(f, qe.Filter):
        return f

    def many(conds: Any) -> list[Any] | None:
        if conds is None:
            return None
        return [_condition(c) for c in (conds if isinstance(conds, list) else [conds])]

    ms = f.min_should
    min_should = None
    if ms is not None:
        min_should = qe.MinShould(conditions=[_condition(c) for c in ms.conditions], min_count=ms.min_count)
    return qe.Filter(must=many(f.must), should=many(f.should), must_not=many(f.must_not), min_should=min_should)


def _condition(c: Any) -> Any:
    if isinstance(c, models.Filter):
        return edge_filter(c)
    if isinstance(c, models.IsEmptyCondition):
        return qe.IsEmptyCondition(c.is_empty.key)
    if isinstance(c, models.IsNullCondition):
        return qe.IsNullCondition(c.is_null.key)  # type: ignore[attr-defined]
    if isinstance(c, models.HasIdCondition):
        return qe.HasIdCondition({edge_id(i) for i in c.has_id})
    if isinstance(c, models.FieldCondition):
        if c.match is not None:
            return qe.FieldCondition(key=c.key, match=_match(c.match))
        if isinstance(c.range, models.DatetimeRange):
            bounds = {k: _iso(getattr(c.range, k)) for k in ("gte", "gt", "lte", "lt")}
            return qe.FieldCondition(key=c.key, range=qe.RangeDateTime(**bounds))
        if isinstance(c.range, models.Range):
            return qe.FieldCondition(
                key=c.key, range=qe.RangeFloat(gte=c.range.gte, gt=c.range.gt, lte=c.range.lte, lt=c.range.lt)
            )
    raise TypeError(f"the Edge store cannot evaluate the filter condition {c!r}")


def _match(m: Any) -> Any:
    if isinstance(m, models.MatchValue):
        return qe.MatchValue(m.value)
    if isinstance(m, models.MatchAny):
        return qe.MatchAny(list(m.any))  # type: ignore[arg-type]
    if isinstance(m, models.MatchExcept):
        return qe.MatchExcept(list(m.except_))  # type: ignore[arg-type]
    if isinstance(m, models.MatchText):
        return qe.MatchText(m.text)
    if isinstance(m, models.MatchSubstring):
        return qe.MatchSubstring(m.substring)
    raise TypeError(f"the Edge store cannot evaluate the match {m!r}")


def _iso(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, datetime | date):
        return v.isoformat()
    return str(v)
