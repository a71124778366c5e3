"""BM25 inside the store: each chunk's term weights as a sparse vector, the IDF applied by the engine.

A chunk's vector holds, for each of its terms (our Japanese/English tokenizer's tokens), BM25's
saturated term frequency ``tf·(k1+1) / (tf + k1·(1 − b + b·len/avgdl))``; the collection's
sparse vector is declared with the IDF modifier, so the engine multiplies by each term's IDF over
the live collection at query time. A query's vector holds each term's count (BM25 sums over the
query's terms), scaled to the ranking's idf (below). Writing a chunk therefore costs that chunk
only, and filters apply inside the engine, where the in-memory index had to be rebuilt whole after every write
(docs/decisions/0016-embedded-engine-candidate.md: nDCG@10 within 0.0004 of rank-bm25's Okapi
statistics on SciFact train, 0.0001 on JSQuAD test).

``avgdl`` is kept in the collection's metadata. The first write into a new collection measures
it on its own chunks (one batch of an ingestion: an estimate); the collection's term statistics
follow the true average along every write (``components/stores/termstats.py``), and an ingestion
that leaves the two more than ``AVGDL_TOLERANCE`` apart rewrites every chunk's weights with the
true one (``LexicalIndex.reweigh``). A stored vector holds what that needs: the weights written
with known parameters give back each term's count and the chunk's length (``read_back``), so no
text is tokenized again.

The engine's IDF is Lucene's, ``ln(1 + (N − n + 0.5)/(n + 0.5))`` (``engine_idf``). Ranking uses
rank-bm25's Okapi form ``ln((N − n + 0.5)/(n + 0.5))`` instead, floored so that every term keeps a
positive weight (``termstats.TermStats.ranking_scale``): a query scales each term's count by the
ratio of the two, so the engine's product is the Okapi idf, and where the collection's term
statistics cannot be had a query keeps the engine's own. Decision 0003 measures what the two
forms and the first batch's estimate of ``avgdl`` do to rankings.

Terms become dimensions by a stable 31-bit hash: no vocabulary to keep in step between
processes; two terms sharing a dimension (about one pair per ten thousand at 100k distinct terms)
only blur their two weights.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import qdrant_edge as qe

from components.ingestion.documents import heading
from components.resilience.errors import CollectionOutdated
from components.stores.edge_models import SparseSpec
from components.stores.points import of_documents
from components.stores.qdrant import QdrantIndex
from components.text.tokenizer import Tokenizer

SPARSE = "bm25"
"""Name of each point's sparse vector."""
K1 = 1.5
B = 0.75
META_KEY = "lexical"
"""Collection metadata key of the parameters the stored weights were computed with."""
AVGDL_TOLERANCE = 0.02
"""How far (relative) the stored weights' ``avgdl`` may be from the collection's before an ingestion
rewrites them: SciFact train-tune's store, written with an estimate 1.8% off, ranks its questions
exactly as with the true average; JSQuAD tune's, 5% off, loses 0.0006 nDCG@10 (decision 0003)."""


def search_text(payload: dict[str, Any]) -> str:
    """The text BM25 indexes for a stored chunk: the same heading line as the embedder saw, and the body."""
    head = heading(
        str(payload.get("title") or ""),
        list(payload.get("aliases") or []),
        list(payload.get("section_hierarchy") or []),
    )
    return f"{head}\n{payload.get('text') or ''}" if head else str(payload.get("text") or "")


@dataclass(frozen=True)
class LexicalParams:
    """What a collection's stored term weights depend on; a query must use the same tokenizer."""

    avgdl: float
    tokenizer: str
    k1: float = K1
    b: float = B

    def to_meta(self) -> dict[str, Any]:
        return {"avgdl": self.avgdl, "tokenizer": self.tokenizer, "k1": self.k1, "b": self.b}

    @classmethod
    def measured(cls, tokens: Iterable[Sequence[str]], tokenizer: str) -> LexicalParams:
        """Parameters whose average length is that of these chunks' token lists."""
        lengths = [len(t) for t in tokens]
        return cls(max(1.0, sum(lengths) / max(1, len(lengths))), tokenizer)

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> LexicalParams | None:
        raw = meta.get(META_KEY)
        if not isinstance(raw, dict) or not raw.get("avgdl"):
            return None
        return cls(float(raw["avgdl"]), str(raw.get("tokenizer", "")), float(raw.get("k1", K1)), float(raw.get("b", B)))


def term_key(token: str) -> int:
    """A token's dimension (stable across processes and machines, unlike ``hash``)."""
    return zlib.crc32(token.encode("utf-8")) & 0x7FFFFFFF


def document_vector(tokens: Sequence[str], params: LexicalParams) -> qe.SparseVector:
    """A chunk's BM25 term weights, without the IDF (the engine's)."""
    tf = Counter(term_key(t) for t in tokens)
    norm = params.k1 * (1.0 - params.b + params.b * len(tokens) / params.avgdl)
    keys = sorted(tf)
    return qe.SparseVector(indices=keys, values=[tf[k] * (params.k1 + 1.0) / (tf[k] + norm) for k in keys])


@dataclass(frozen=True)
class ChunkTerms:
    """What a stored chunk adds to the collection's term statistics: its term dimensions (each
    once) and its length in tokens."""

    keys: np.ndarray
    length: float


def read_back(vector: qe.SparseVector, params: LexicalParams) -> tuple[ChunkTerms, np.ndarray]:
    """A stored chunk's term dimensions, its length and each term's count, from the weights
    ``document_vector`` wrote with ``params``.

    A weight ``w = tf·(k1+1)/(tf + norm)`` gives ``r = w/(k1+1−w) = tf/norm``; the length is
    ``Σ tf = norm·Σr`` and ``norm = k1·(1 − b + b·len/avgdl)``, so ``norm = k1·(1−b) / (1 −
    k1·b·Σr/avgdl)``: exact up to the stored floats' precision."""
    keys = np.asarray(vector.indices, dtype=np.int64)
    w = np.asarray(vector.values, dtype=np.float64)
    if not len(w):
        return ChunkTerms(keys, 0.0), w
    r = w / (params.k1 + 1.0 - w)
    norm = params.k1 * (1.0 - params.b) / (1.0 - params.k1 * params.b * float(r.sum()) / params.avgdl)
    tf = np.maximum(1.0, np.rint(r * norm))
    return ChunkTerms(keys, float(tf.sum())), tf


def reweighted(vector: qe.SparseVector, written: LexicalParams, now: LexicalParams) -> qe.SparseVector:
    """The weights of a chunk stored with ``written`` parameters, computed with ``now``'s."""
    terms, tf = read_back(vector, written)
    norm = now.k1 * (1.0 - now.b + now.b * terms.length / now.avgdl)
    return qe.SparseVector(indices=terms.keys.tolist(), values=(tf * (now.k1 + 1.0) / (tf + norm)).tolist())


def engine_idf(n: np.ndarray, chunks: int) -> np.ndarray:
    """The IDF the engine multiplies a term's weights by (Qdrant's IDF modifier, Lucene's form),
    for terms in ``n`` of ``chunks`` chunks."""
    return np.log1p((chunks - n + 0.5) / (n + 0.5))


def query_vector(tokens: Sequence[str], scale: Mapping[str, float] | None = None) -> qe.SparseVector:
    """A query: each term with how often the query holds it, times its ``scale`` (the ranking
    idf over the engine's, ``TermStats.ranking_scale``; 1 for a term the table lacks)."""
    weights: dict[int, float] = {}
    for token, count in Counter(tokens).items():
        key = term_key(token)
        weights[key] = weights.get(key, 0.0) + count * (scale.get(token, 1.0) if scale is not None else 1.0)
    keys = sorted(weights)
    return qe.SparseVector(indices=keys, values=[float(weights[k]) for k in keys])


def sparse_config() -> dict[str, SparseSpec]:
    """The collection's sparse vector: IDF over the live collection, computed by the engine."""
    return {SPARSE: SparseSpec("idf")}


class LexicalIndex:
    """The BM25 side of a chunk collection, kept in the store: weights written with the chunks, searched there.

    A collection an earlier version made without the weights, or with another tokenizer's, is
    refused with ``CollectionOutdated``: `rag migrate` computes them from the stored texts.
    """

    def __init__(self, index: QdrantIndex, tokenizer: Tokenizer) -> None:
        self.index = index
        self.tokenizer = tokenizer

    def outdated(self, meta: dict[str, Any] | None = None) -> str | None:
        """Why the stored term weights cannot serve this tokenizer's queries (none stored, or made
        with another tokenizer), or None when they can; ``meta``: the collection's metadata when the
        caller has just read it. A new collection nothing was written to yet is current: its first
        write fixes its parameters."""
        params = LexicalParams.from_meta(self.index.metadata() if meta is None else meta)
        if params is None:
            empty = self.index.count() == 0 and SPARSE in self.index.sparse_vectors()
            return None if empty else "it keeps no BM25 term weights"
        if params.tokenizer != self.tokenizer.signature:
            return f"its BM25 term weights were made with tokenizer {params.tokenizer}, not {self.tokenizer.signature}"
        return None

    def params(self, meta: dict[str, Any] | None = None) -> LexicalParams | None:
        """The parameters of the stored weights (None before a new collection's first write); raises
        ``CollectionOutdated`` when queries cannot use them. ``meta`` as for ``outdated``."""
        meta = self.index.metadata() if meta is None else meta
        why = self.outdated(meta)
        if why is not None:
            raise self._outdated(why)
        return LexicalParams.from_meta(meta)

    def weights(self, documents: Sequence[Sequence[dict[str, Any]]]) -> tuple[str, list[list[qe.SparseVector]]]:
        """Each chunk's term weights, per document, for ``QdrantIndex.write``. The first write into
        a new collection fixes its average chunk length."""
        params = self.params()
        tokens = [[self.tokenizer(search_text(pl)) for pl in payloads] for payloads in documents]
        if params is None:
            params = LexicalParams.measured((t for doc in tokens for t in doc), self.tokenizer.signature)
            self.index.update_metadata(**{META_KEY: params.to_meta()})
        return SPARSE, [[document_vector(t, params) for t in doc] for doc in tokens]

    def _outdated(self, why: str) -> CollectionOutdated:
        index = self.index
        if index.is_edge:
            todo = "Run `rag migrate`: it computes them from the stored texts (nothing is embedded again)."
        elif index.is_local:
            todo = (
                "Run `rag migrate` with QDRANT_ENGINE unset: it copies the store into Qdrant Edge and "
                "computes them from the stored texts (nothing is embedded again)."
            )
        else:
            todo = (
                "`rag migrate` upgrades the embedded store only: ingest into a new collection (--collection "
                f"NAME / COLLECTION), or drop this one with `rag drop {index.collection}` and ingest again."
            )
        return CollectionOutdated(
            f"Collection {index.collection!r} at {index.location} was written by an earlier version: {why}. {todo}"
        )

    def search(
        self,
        query_tokens: Sequence[str],
        *,
        limit: int,
        query_filter: qe.Filter | None = None,
        with_payload: bool | Sequence[str] = True,
        scale: Mapping[str, float] | None = None,
    ) -> list[Any]:
        """The best chunks for these query tokens; ``scale`` as for ``query_vector``."""
        return self.index.search_sparse(
            SPARSE, query_vector(query_tokens, scale), limit=limit, query_filter=query_filter, with_payload=with_payload
        )

    def _stored(self, where: qe.Filter | None) -> Iterable[tuple[Any, qe.SparseVector]]:
        for r in self.index.scroll(fields=False, vectors=[SPARSE], scroll_filter=where, batch=4096):
            vec = r.vector.get(SPARSE) if isinstance(r.vector, dict) else None
            # a server answers with qdrant-client's SparseVector, the embedded store with Edge's: the
            # same indices and values
            yield (
                r.id,
                cast(qe.SparseVector, vec) if hasattr(vec, "indices") else qe.SparseVector(indices=[], values=[]),
            )

    def terms(self, doc_ids: Sequence[str] | None = None) -> list[ChunkTerms]:
        """Each stored chunk's term dimensions and length (of these documents only, when given):
        what the collection's term statistics are counted from, without tokenizing any text again."""
        if doc_ids is not None and not doc_ids:
            return []
        params = self.params()
        if params is None:  # a new collection nothing was written to yet
            return []
        where = None if doc_ids is None else of_documents(doc_ids)
        return [read_back(vec, params)[0] for _, vec in self._stored(where)]

    def written(self, weights: Sequence[Sequence[qe.SparseVector]]) -> list[ChunkTerms]:
        """The term statistics of chunks whose weights ``weights`` just computed."""
        params = self.params()
        assert params is not None, "weights() fixes a new collection's parameters"
        return [read_back(vec, params)[0] for doc in weights for vec in doc]

    def reweigh(self, avgdl: float, *, batch: int = 4096) -> int:
        """Rewrite every chunk's weights for this average length (read back from the stored
        weights, no text tokenized again) and record it; how many chunks were rewritten."""
        written = self.params()
        if written is None:
            return 0
        now = replace(written, avgdl=avgdl)
        done = 0
        pending: dict[str, qe.SparseVector] = {}
        for pid, vec in self._stored(None):
            pending[str(pid)] = reweighted(vec, written, now)
            if len(pending) >= batch:
                self.index.set_vectors(SPARSE, pending)
                done, pending = done + len(pending), {}
        self.index.set_vectors(SPARSE, pending)
        self.index.update_metadata(**{META_KEY: now.to_meta()})
        return done + len(pending)
