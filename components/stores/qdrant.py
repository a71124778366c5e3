"""The Qdrant collection that ingestion writes and queries read: its points, read, written and searched.

One class for every deployment: the embedded store on disk and a Qdrant server or cluster
(``components/stores/connection.py`` opens either; ``components/stores/collection.py`` creates
and checks the collection; ``components/stores/points.py`` says what a point and its payload are).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import qdrant_edge as qe

from components.ingestion.chunk_types import chunk_type
from components.stores.collection import TYPED_KEY, Collection
from components.stores.edge_models import DeleteWhere, Operation, SetPayload, Upsert, edge_id, edge_vector, point
from components.stores.points import CONTENT_KEY, DENSE, FoundPoint, StoredPoint, of_documents, point_id

log = logging.getLogger(__name__)

HNSW_EF = 128
"""Fewest candidates an HNSW search keeps; a search keeps at least four times its limit. With
Qdrant's default (100), dense Recall@100 on SciFact train fell from 0.919 (exact) to 0.910, with
twice the limit to 0.914; four times matched the exact search. A segment too small for a graph is
searched exactly whatever this says."""
#: payload fields the ingestion skip check reads; the rest stays on disk
_STATE_FIELDS = ["doc_id", "content_hash", "total_chunks", "origin", "chunk_index"]


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


class QdrantIndex(Collection):
    """Qdrant collection access: create/validate, write documents atomically-per-request, read."""

    def count(self, where: qe.Filter | None = None) -> int:
        """How many points pass ``where`` (all of them without one)."""
        return int(self._call("count", self.client.count, self.collection, count_filter=where, exact=True).count)

    def scroll(
        self,
        *,
        fields: Sequence[str] | bool = True,
        batch: int = 2048,
        scroll_filter: qe.Filter | None = None,
        vectors: Sequence[str] | bool = False,
    ) -> Iterator[StoredPoint]:
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

    def facet(self, key: str, *, where: qe.Filter | None = None, limit: int = 100_000) -> dict[str, int]:
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
        flt = qe.Filter(must=[qe.FieldCondition(key="parent_id", match=qe.MatchAny(wanted))])
        rank = {p: i for i, p in enumerate(wanted)}
        out = [dict(p.payload or {}) for p in self.scroll(scroll_filter=flt, batch=256)]
        out.sort(key=lambda pl: (rank.get(str(pl.get("parent_id")), len(rank)), int(pl.get("chunk_index", 0))))
        return out

    # ------------------------------------------------------------------ writes
    def write(
        self,
        items: Sequence[tuple[str, list[dict[str, Any]], Sequence[Sequence[float]]]],
        *,
        sparse: tuple[str, Sequence[Sequence[qe.SparseVector]]] | None = None,
    ) -> None:
        """Write several documents in one request: each one's new chunks, then its leftovers out.

        ``items`` holds (doc_id, chunk payloads, vectors) per document; ``sparse`` a sparse
        vector's name and, per document, each chunk's sparse vector. Upserting onto
        deterministic ids overwrites a changed document in place, and the delete that follows
        in the same request removes the chunks past its new end, so a reader never sees the
        document missing and never sees it twice.
        """
        ops: list[Operation] = []
        deletes: list[Operation] = []
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
                point(point_id(doc_id, int(pl["chunk_index"])), vec, pl)
                for pl, vec in zip(payloads, named, strict=True)
            ]
            ops.append(Upsert(points))
            leftovers = qe.Filter(
                must=[
                    qe.FieldCondition(key="doc_id", match=qe.MatchValue(doc_id)),
                    qe.FieldCondition(key="chunk_index", range=qe.RangeFloat(gte=len(payloads))),
                ]
            )
            deletes.append(DeleteWhere(leftovers))
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
        missing = qe.Filter(must=[qe.IsEmptyCondition("chunk_type")])
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
                points=ids,
                wait=True,
            )
        self.update_metadata(**{TYPED_KEY: True})
        return sum(len(ids) for ids in by_type.values())

    def upsert_vectors(
        self, point_ids: Sequence[str], vectors: np.ndarray, *, payloads: Sequence[dict[str, Any]] | None = None
    ) -> None:
        """Write vectors (with ``payloads``, else bare) under the given ids, in one request."""
        pls: Sequence[dict[str, Any] | None] = payloads if payloads is not None else [None] * len(point_ids)
        points = [point(i, {DENSE: v.tolist()}, pl) for i, v, pl in zip(point_ids, vectors, pls, strict=True)]
        self._call("upsert", self.client.upsert, self.collection, points=points, wait=True)

    def set_payloads(self, payloads: dict[str, dict[str, Any]], *, batch: int = 1024) -> None:
        """Set these keys of each point's payload (point id -> keys), ``batch`` points per request."""
        ids = list(payloads)
        for start in range(0, len(ids), batch):
            ops: list[Operation] = [SetPayload(payloads[i], [i]) for i in ids[start : start + batch]]
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
                points_selector=list(point_ids),
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
            points_selector=of_documents(doc_ids),
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
        query_filter: qe.Filter | None = None,
        with_payload: bool | Sequence[str] = True,
    ) -> list[FoundPoint]:
        # local mode searches exactly (and warns about any search parameter)
        params = None if self.engine == "local" and self.is_local else self._search_params(limit)
        return self._query(vector.tolist(), DENSE, limit, query_filter, with_payload, params)

    def search_sparse(
        self,
        name: str,
        vector: qe.SparseVector,
        *,
        limit: int = 10,
        query_filter: qe.Filter | None = None,
        with_payload: bool | Sequence[str] = True,
    ) -> list[FoundPoint]:
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
        query_filter: qe.Filter | None,
        with_payload: bool | Sequence[str],
        search_params: qe.SearchParams | None,
    ) -> list[FoundPoint]:
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
        points = [qe.PointVectors(edge_id(i), {name: edge_vector(v)}) for i, v in vectors.items()]
        if points:
            self._call("update_vectors", self.client.update_vectors, self.collection, points=points, wait=True)

    @staticmethod
    def _search_params(limit: int) -> qe.SearchParams:
        return qe.SearchParams(hnsw_ef=max(HNSW_EF, 4 * limit))

    def payloads(self, point_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Payloads by point id (ids not in the collection are left out)."""
        return {str(p.id): dict(p.payload or {}) for p in self._retrieve(point_ids, with_payload=True)}

    def _retrieve(self, point_ids: Sequence[str], **kwargs: Any) -> list[StoredPoint]:
        """Points by id, each asked for once; no request at all for no ids."""
        ids = list(dict.fromkeys(point_ids))
        if not ids:
            return []
        return list(self._call("retrieve", self.client.retrieve, self.collection, ids=ids, **kwargs))
