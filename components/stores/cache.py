"""Semantic answer cache: a question close enough to one answered before gets that answer at once.

In process, in memory, thread-safe. Entries live in *scopes*: the caller builds the scope
string from everything that makes two answers comparable (collection, index version,
filters, language, ...), so re-ingestion (a new index version) or other filters simply look
in another scope and never see a stale answer. Within a scope the question vectors form one
L2-normalised matrix, so a lookup is one matrix-vector product (cosine similarity).

The ``CacheBackend`` protocol is the seam for GPTCache (with local storage) later: the graph
only calls ``lookup``, ``store`` and ``stats``.
"""

from __future__ import annotations

import copy
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CacheEntry:
    """A cached answer as a lookup returns it."""

    question: str
    value: dict[str, Any]
    scope: str
    similarity: float
    created_at: float


@dataclass(frozen=True)
class CacheStats:
    hits: int
    misses: int
    size: int

    def as_dict(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "size": self.size}


class CacheBackend(Protocol):
    """What the graph needs from a semantic cache."""

    def lookup(self, vector: np.ndarray, *, scope: str, threshold: float | None = None) -> CacheEntry | None: ...

    def store(self, vector: np.ndarray, *, scope: str, question: str, value: dict[str, Any]) -> None: ...

    def stats(self) -> CacheStats: ...


@dataclass
class _Item:
    scope: str
    vector: np.ndarray
    question: str
    value: dict[str, Any]
    created_at: float


@dataclass
class _Scope:
    keys: list[int] = field(default_factory=list)
    matrix: np.ndarray | None = None  # rows follow ``keys``; None when it must be rebuilt


class SemanticCache:
    """Cosine-similarity cache with per-scope matrices, LRU eviction and a time to live."""

    def __init__(
        self,
        *,
        threshold: float = 0.95,
        max_entries: int = 1000,
        ttl_seconds: float = 24 * 3600,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], not {threshold}")
        if max_entries < 1:
            raise ValueError(f"max_entries must be at least 1, not {max_entries}")
        if ttl_seconds <= 0:
            raise ValueError(f"ttl_seconds must be positive, not {ttl_seconds}")
        self.threshold = threshold
        self.max_entries = max_entries
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._items: OrderedDict[int, _Item] = OrderedDict()  # least recently used first
        self._scopes: dict[str, _Scope] = {}
        self._next = 0
        self._hits = 0
        self._misses = 0
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ API
    def lookup(self, vector: np.ndarray, *, scope: str, threshold: float | None = None) -> CacheEntry | None:
        """The most similar live entry of ``scope`` at or above the threshold, or None."""
        q = _unit(vector)
        limit = self.threshold if threshold is None else threshold
        with self._lock:
            self._expire(scope)
            sc = self._scopes.get(scope)
            if sc is None or not sc.keys or q is None:
                self._misses += 1
                return None
            matrix = self._matrix(sc)
            if matrix.shape[1] != q.shape[0]:
                log.warning(
                    "semantic cache: query vector has %d dims, scope %r holds %d; a miss",
                    q.shape[0],
                    scope,
                    matrix.shape[1],
                )
                self._misses += 1
                return None
            sims = matrix @ q
            best = int(np.argmax(sims))
            similarity = float(sims[best])
            if similarity < limit:
                self._misses += 1
                return None
            key = sc.keys[best]
            item = self._items[key]
            self._items.move_to_end(key)
            self._hits += 1
            # a copy: the caller may change its result without changing the cache
            return CacheEntry(item.question, copy.deepcopy(item.value), scope, similarity, item.created_at)

    def store(self, vector: np.ndarray, *, scope: str, question: str, value: dict[str, Any]) -> None:
        """Remember ``value`` for ``question`` in ``scope``; a near-identical question is replaced."""
        q = _unit(vector)
        if q is None:
            log.warning("semantic cache: not storing a zero or non-finite vector")
            return
        with self._lock:
            self._expire(scope)
            sc = self._scopes.setdefault(scope, _Scope())
            if sc.keys:
                matrix = self._matrix(sc)
                if matrix.shape[1] == q.shape[0]:
                    sims = matrix @ q
                    best = int(np.argmax(sims))
                    if sims[best] >= 0.9999:  # the same question again: refresh instead of duplicating
                        self._remove(sc.keys[best])
                else:  # another embedding model answered in the same scope: start it over
                    for key in list(sc.keys):
                        self._remove(key)
            sc = self._scopes.setdefault(scope, _Scope())
            key = self._next
            self._next += 1
            self._items[key] = _Item(scope, q, question, copy.deepcopy(value), self._clock())
            sc.keys.append(key)
            sc.matrix = None
            while len(self._items) > self.max_entries:
                oldest = next(iter(self._items))
                self._remove(oldest)

    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(hits=self._hits, misses=self._misses, size=len(self._items))

    def clear(self, scope: str | None = None) -> None:
        """Forget one scope, or everything."""
        with self._lock:
            keys = list(self._items) if scope is None else list(self._scopes.get(scope, _Scope()).keys)
            for key in keys:
                self._remove(key)

    # ------------------------------------------------------------------ internals (lock held)
    def _matrix(self, sc: _Scope) -> np.ndarray:
        if sc.matrix is None:
            sc.matrix = np.stack([self._items[k].vector for k in sc.keys])
        return sc.matrix

    def _remove(self, key: int) -> None:
        item = self._items.pop(key)
        sc = self._scopes[item.scope]
        sc.keys.remove(key)
        sc.matrix = None
        if not sc.keys:
            del self._scopes[item.scope]

    def _expire(self, scope: str) -> None:
        sc = self._scopes.get(scope)
        if sc is None:
            return
        cutoff = self._clock() - self.ttl_seconds
        for key in [k for k in sc.keys if self._items[k].created_at <= cutoff]:
            self._remove(key)


def _unit(vector: np.ndarray) -> np.ndarray | None:
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    n = float(np.linalg.norm(v))
    if not np.isfinite(n) or n == 0.0:
        return None
    return v / n
