"""The semantic answer cache on GPTCache, persistent under the data folder and shared by processes.

Everything GPTCache-specific lives in this module (GPTCache's last release was in 2024; replacing
it means replacing this file behind ``components.stores.cache.CacheBackend``).

GPTCache's ``Cache`` holds a data manager (``SSDataManager``) over two stores in one SQLite file:

* the scalar store is GPTCache's own SQL storage (questions, answers; SQLAlchemy), and its
  memory LRU eviction bounds the number of entries;
* the vector store is :class:`ScopedVectors`, a small ``VectorBase`` of our own. GPTCache's
  bundled Qdrant store calls ``search``, which qdrant-client 1.20 removed, and its faiss store
  keeps the index in process memory until ``flush`` (a second process neither sees nor may
  safely write it). Vectors sit in a table of the same SQLite file (WAL, so a CLI and a server
  can use it at once), with the entry's *scope*; a search reads only its scope's rows, so a
  neighbour from another user, filter set or index version is never a candidate, not merely
  filtered out afterwards. A scope's matrix is kept in memory and reread when the table changed.

Answers are stored as JSON with the time they were stored; an entry older than the time to live
is a miss and is deleted. GPTCache would ``pip install`` a storage backend it cannot import
(``gptcache.utils.import_*``): the ones used here (SQLAlchemy, cachetools, numpy) are the
project's declared dependencies, and :func:`_refuse_installs` turns any such attempt into an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from components.resilience.errors import ServiceUnavailable
from components.stores.cache import CacheEntry, CacheStats

log = logging.getLogger(__name__)

#: SQLite file under the data folder
FILE_NAME = "semantic-cache.sqlite"


def _refuse_installs() -> None:
    """GPTCache installs missing backends with pip at first use; here that is a bug, never a fix."""
    import gptcache.utils as utils
    import gptcache.utils.dependency_control as control

    def refuse(package: str, warn: bool = False) -> None:
        raise RuntimeError(
            f"GPTCache tried to pip-install {package!r}; the semantic cache uses only declared "
            "dependencies, so reinstall the project (pip install -e .) instead."
        )

    control.prompt_install = refuse
    utils.prompt_install = refuse


def scope_key(scope: str) -> str:
    """A fixed-length key for a scope string (which may hold filters and group names)."""
    return hashlib.sha256(scope.encode("utf-8")).hexdigest()[:32]


class ScopedVectors:
    """GPTCache ``VectorBase`` over a SQLite table: (id, scope, vector), searched one scope at a time.

    GPTCache's data manager calls ``mul_add`` and ``search`` without a scope; the cache sets
    :attr:`scope` (under its lock) before each call.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.scope = ""
        self._closed = False
        self._db = sqlite3.connect(path, check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS rag_cache_vectors (id INTEGER PRIMARY KEY, scope TEXT NOT NULL, vector BLOB)"
        )
        self._db.execute("CREATE INDEX IF NOT EXISTS rag_cache_vectors_scope ON rag_cache_vectors(scope)")
        self._db.commit()
        self._matrices: dict[str, tuple[tuple[int, int], list[int], np.ndarray]] = {}

    # --- GPTCache's VectorBase interface
    def mul_add(self, datas: list[Any]) -> None:
        rows = [(int(d.id), self.scope, np.asarray(d.data, dtype=np.float32).tobytes()) for d in datas]
        self._db.executemany("INSERT OR REPLACE INTO rag_cache_vectors VALUES (?, ?, ?)", rows)
        self._db.commit()

    def search(self, data: np.ndarray, top_k: int = 1) -> list[tuple[float, int]] | None:
        ids, matrix = self._matrix(self.scope)
        if not ids:
            return None
        q = np.asarray(data, dtype=np.float32).reshape(-1)
        if matrix.shape[1] != q.shape[0]:  # another embedding model: nothing comparable
            return None
        sims = matrix @ q
        order = np.argsort(-sims)[: max(1, top_k)]
        return [(float(sims[i]), ids[i]) for i in order]

    def rebuild(self, ids: Any = None) -> bool:
        return True

    def delete(self, ids: Any) -> bool:
        keys = [(int(i),) for i in ids]
        self._db.executemany("DELETE FROM rag_cache_vectors WHERE id = ?", keys)
        self._db.commit()
        return True

    def flush(self) -> None:
        if not self._closed:
            self._db.commit()

    def close(self) -> None:
        # GPTCache's Cache closes its data manager at exit, and Components.close may come first
        if not self._closed:
            self._closed = True
            self._db.close()

    def get_embeddings(self, data_id: int | str) -> np.ndarray | None:
        row = self._db.execute("SELECT vector FROM rag_cache_vectors WHERE id = ?", (int(data_id),)).fetchone()
        return np.frombuffer(row[0], dtype=np.float32) if row else None

    def update_embeddings(self, data_id: int | str, emb: np.ndarray) -> None:
        blob = np.asarray(emb, dtype=np.float32).tobytes()
        self._db.execute("UPDATE rag_cache_vectors SET vector = ? WHERE id = ?", (blob, int(data_id)))
        self._db.commit()

    # --- ours
    def _matrix(self, scope: str) -> tuple[list[int], np.ndarray]:
        version = self._db.execute(
            "SELECT count(*), coalesce(max(id), 0) FROM rag_cache_vectors WHERE scope = ?", (scope,)
        ).fetchone()
        cached = self._matrices.get(scope)
        if cached is not None and cached[0] == tuple(version):
            return cached[1], cached[2]
        rows = self._db.execute("SELECT id, vector FROM rag_cache_vectors WHERE scope = ? ORDER BY id", (scope,))
        ids: list[int] = []
        vectors: list[np.ndarray] = []
        for i, blob in rows:
            ids.append(int(i))
            vectors.append(np.frombuffer(blob, dtype=np.float32))
        matrix = np.vstack(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)
        self._matrices[scope] = ((int(version[0]), int(version[1])), ids, matrix)
        return ids, matrix

    def scopes(self) -> dict[str, int]:
        return dict(self._db.execute("SELECT scope, count(*) FROM rag_cache_vectors GROUP BY scope").fetchall())


class GPTCacheBackend:
    """``CacheBackend`` on GPTCache: lookup and store by question vector within a scope."""

    def __init__(
        self,
        folder: Path,
        *,
        threshold: float = 0.977,
        max_entries: int = 5000,
        ttl_seconds: float = 7 * 24 * 3600,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], not {threshold}")
        if max_entries < 1 or ttl_seconds <= 0:
            raise ValueError("max_entries must be at least 1 and ttl_seconds positive")
        _refuse_installs()
        from gptcache import Cache
        from gptcache.manager import CacheBase, get_data_manager

        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / FILE_NAME
        self.threshold = threshold
        self.ttl_seconds = ttl_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._vectors = ScopedVectors(self.path)
        scalars = CacheBase("sqlite", sql_url=f"sqlite:///{self.path}", table_name="rag_cache")
        self._manager = get_data_manager(
            scalars, self._vectors, max_size=max_entries, clean_size=max(1, max_entries // 10)
        )
        self.cache = Cache()
        # vectors come from the project's embedder (the question's vector is already computed for
        # routing); GPTCache's embedding step passes them through
        self.cache.init(embedding_func=lambda vector, **_: vector, data_manager=self._manager)
        self._hits = 0
        self._misses = 0

    @contextlib.contextmanager
    def _in(self, scope: str) -> Iterator[None]:
        """Under the lock, with the vector store searching ``scope``; storage errors (a locked or
        damaged file) become ServiceUnavailable, which the graph treats as a cache miss."""
        with self._lock:
            self._vectors.scope = scope_key(scope)
            try:
                yield
            except (sqlite3.Error, OSError, ValueError) as e:
                raise ServiceUnavailable(f"the semantic cache at {self.path} failed ({e}); answering without it") from e
            except Exception as e:  # SQLAlchemy's errors, from GPTCache's scalar store
                if type(e).__module__.startswith("sqlalchemy"):
                    raise ServiceUnavailable(f"the semantic cache at {self.path} failed ({e})") from e
                raise

    def lookup(self, vector: np.ndarray, *, scope: str, threshold: float | None = None) -> CacheEntry | None:
        """The most similar live entry of ``scope`` at or above the threshold, or None."""
        limit = self.threshold if threshold is None else threshold
        q = _unit(vector)
        with self._in(scope):
            found = self._manager.search(self.cache.embedding_func(q), top_k=3) if q is not None else None
            for similarity, key in found or []:
                if similarity < limit:
                    break
                data = self._manager.get_scalar_data((similarity, key))
                if data is None:
                    continue
                stored = json.loads(_answer_text(data))
                if self._clock() - float(stored["stored_at"]) > self.ttl_seconds:
                    self._forget([key])
                    continue
                self._manager.hit_cache_callback((similarity, key))
                self._hits += 1
                question = data.question if isinstance(data.question, str) else str(data.question.content)
                return CacheEntry(question, stored["value"], scope, float(similarity), float(stored["stored_at"]))
            self._misses += 1
            return None

    def store(self, vector: np.ndarray, *, scope: str, question: str, value: dict[str, Any]) -> None:
        """Remember ``value`` for ``question`` in ``scope``; the same question again replaces it."""
        q = _unit(vector)
        if q is None:
            log.warning("semantic cache: not storing a zero or non-finite vector")
            return
        payload = json.dumps({"stored_at": self._clock(), "value": value}, ensure_ascii=False)
        with self._in(scope):
            same = self._manager.search(q, top_k=1)
            if same and same[0][0] >= 0.9999:
                self._forget([same[0][1]])
            self._manager.save(question, payload, q)
            self._manager.flush()

    def stats(self) -> CacheStats:
        with self._lock:
            size = sum(self._vectors.scopes().values())
            return CacheStats(hits=self._hits, misses=self._misses, size=size)

    def describe(self) -> dict[str, Any]:
        """What ``rag cache stats`` shows: entries per scope key, the file and its size."""
        with self._lock:
            scopes = self._vectors.scopes()
        return {
            "path": str(self.path),
            "bytes": self.path.stat().st_size if self.path.exists() else 0,
            "entries": sum(scopes.values()),
            "scopes": len(scopes),
            "ttl_seconds": self.ttl_seconds,
        }

    def clear(self, scope: str | None = None) -> int:
        """Forget one scope, or everything; returns how many entries went."""
        with self._lock:
            if scope is None:
                keys = [int(r[0]) for r in self._vectors._db.execute("SELECT id FROM rag_cache_vectors")]
            else:
                keys = [
                    int(r[0])
                    for r in self._vectors._db.execute(
                        "SELECT id FROM rag_cache_vectors WHERE scope = ?", (scope_key(scope),)
                    )
                ]
            self._forget(keys)
            return len(keys)

    def _forget(self, keys: list[int]) -> None:
        if not keys:
            return
        self._manager.s.mark_deleted(keys)
        self._manager.s.clear_deleted_data()
        self._vectors.delete(keys)

    def close(self) -> None:
        with self._lock:
            if not self._vectors._closed:
                self._manager.flush()
                self._vectors.close()


def _answer_text(data: Any) -> str:
    answer = data.answers[0]
    return str(answer.answer if hasattr(answer, "answer") else answer)


def _unit(vector: np.ndarray) -> np.ndarray | None:
    v = np.asarray(vector, dtype=np.float32).reshape(-1)
    n = float(np.linalg.norm(v))
    if not np.isfinite(n) or n == 0.0:
        return None
    return v / n
