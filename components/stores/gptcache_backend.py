"""The semantic answer cache on GPTCache, persistent under the data folder and shared by processes.

Everything GPTCache-specific lives in this module (GPTCache's last release was in 2024; replacing
it means replacing this file behind ``components.stores.cache.CacheBackend``).

GPTCache's ``Cache`` holds a data manager (``SSDataManager``) over two stores in one database (a
SQLite file under the data folder, or Postgres when ``DATABASE_URL`` is set):

* the scalar store is GPTCache's own SQL storage (questions, answers; SQLAlchemy), and its
  memory LRU eviction bounds the number of entries;
* the vector store is :class:`ScopedVectors`, a small ``VectorBase`` of our own. GPTCache's
  bundled Qdrant store calls ``search``, which qdrant-client 1.20 removed, and its faiss store
  keeps the index in process memory until ``flush`` (a second process neither sees nor may
  safely write it). Vectors sit in a table of the same database (SQLite in WAL mode, so a CLI and
  a server can use it at once), with the entry's *scope*; a search reads only its scope's rows, so a
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
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from components.resilience.errors import ServiceUnavailable
from components.stores import database
from components.stores.cache import CacheEntry, CacheStats

if TYPE_CHECKING:
    import sqlalchemy as sa

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
    """GPTCache ``VectorBase`` over a SQL table: (id, scope, vector), searched one scope at a time.

    GPTCache's data manager calls ``mul_add`` and ``search`` without a scope; the cache sets
    :attr:`scope` (under its lock) before each call. SQLAlchemy Core, so that the same table lives
    in the SQLite file or in Postgres.
    """

    def __init__(self, engine: sa.Engine) -> None:
        import sqlalchemy as sa

        self.scope = ""
        self._closed = False
        self._engine = engine
        meta = sa.MetaData()
        self._t = sa.Table(
            "rag_cache_vectors",
            meta,
            sa.Column("id", sa.BigInteger().with_variant(sa.Integer, "sqlite"), primary_key=True, autoincrement=False),
            sa.Column("scope", sa.String(64), nullable=False, index=True),
            sa.Column("vector", sa.LargeBinary),
        )
        meta.create_all(engine)
        self._matrices: dict[str, tuple[tuple[int, int], list[int], np.ndarray]] = {}

    # --- GPTCache's VectorBase interface
    def mul_add(self, datas: list[Any]) -> None:
        rows = [
            {"id": int(d.id), "scope": self.scope, "vector": np.asarray(d.data, dtype=np.float32).tobytes()}
            for d in datas
        ]
        if not rows:
            return
        with self._engine.begin() as conn:  # one transaction: replace whatever held these ids
            conn.execute(self._t.delete().where(self._t.c.id.in_([r["id"] for r in rows])))
            conn.execute(self._t.insert(), rows)

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
        keys = [int(i) for i in ids]
        if keys:
            with self._engine.begin() as conn:
                conn.execute(self._t.delete().where(self._t.c.id.in_(keys)))
        return True

    def flush(self) -> None:
        """Every write commits as it happens; nothing is pending."""

    def close(self) -> None:
        # GPTCache's Cache closes its data manager at exit, and Components.close may come first
        if not self._closed:
            self._closed = True
            self._engine.dispose()

    def get_embeddings(self, data_id: int | str) -> np.ndarray | None:
        with self._engine.connect() as conn:
            blob = conn.execute(
                self._t.select().with_only_columns(self._t.c.vector).where(self._t.c.id == int(data_id))
            ).scalar()
        return np.frombuffer(blob, dtype=np.float32) if blob is not None else None

    def update_embeddings(self, data_id: int | str, emb: np.ndarray) -> None:
        blob = np.asarray(emb, dtype=np.float32).tobytes()
        with self._engine.begin() as conn:
            conn.execute(self._t.update().where(self._t.c.id == int(data_id)).values(vector=blob))

    # --- ours
    def _matrix(self, scope: str) -> tuple[list[int], np.ndarray]:
        import sqlalchemy as sa

        t = self._t
        with self._engine.connect() as conn:
            count, top = conn.execute(
                sa.select(sa.func.count(), sa.func.coalesce(sa.func.max(t.c.id), 0)).where(t.c.scope == scope)
            ).one()
            version = (int(count), int(top))
            cached = self._matrices.get(scope)
            if cached is not None and cached[0] == version:
                return cached[1], cached[2]
            rows = conn.execute(sa.select(t.c.id, t.c.vector).where(t.c.scope == scope).order_by(t.c.id)).all()
        ids = [int(i) for i, _ in rows]
        vectors = [np.frombuffer(blob, dtype=np.float32) for _, blob in rows]
        matrix = np.vstack(vectors) if vectors else np.zeros((0, 0), dtype=np.float32)
        self._matrices[scope] = (version, ids, matrix)
        return ids, matrix

    def scopes(self) -> dict[str, int]:
        import sqlalchemy as sa

        with self._engine.connect() as conn:
            rows = conn.execute(sa.select(self._t.c.scope, sa.func.count()).group_by(self._t.c.scope)).all()
        return {str(scope): int(n) for scope, n in rows}

    def ids(self, scope: str | None = None) -> list[int]:
        """Every entry's id, or one scope's."""
        import sqlalchemy as sa

        query = sa.select(self._t.c.id)
        if scope is not None:
            query = query.where(self._t.c.scope == scope)
        with self._engine.connect() as conn:
            return [int(i) for i in conn.execute(query).scalars()]


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
        url: str = "",
    ) -> None:
        """``url``: a SQLAlchemy URL (``components.stores.database.sqlalchemy_url``); empty, the
        SQLite file ``folder/semantic-cache.sqlite``."""
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], not {threshold}")
        if max_entries < 1 or ttl_seconds <= 0:
            raise ValueError("max_entries must be at least 1 and ttl_seconds positive")
        self._url = url or f"sqlite:///{folder / FILE_NAME}"
        self.path = database.sqlite_file(self._url)
        self.where = database.location(self._url)
        self.threshold = threshold
        self.ttl_seconds = ttl_seconds
        self._max_entries = max_entries
        self._clock = clock
        self._lock = threading.Lock()
        # GPTCache, SQLAlchemy and the database open on first use: building the graph reads this
        # object (LangGraph inspects what each node refers to), and a search never asks the cache
        self._opened: tuple[ScopedVectors, Any, Any] | None = None
        self._open_lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    def _open(self) -> tuple[ScopedVectors, Any, Any]:
        """GPTCache's data manager and ``Cache`` over this database, made on first use."""
        with self._open_lock:
            if self._opened is None:
                _refuse_installs()
                from gptcache import Cache
                from gptcache.manager import get_data_manager
                from gptcache.manager.scalar_data.sql_storage import SQLStorage

                vectors = ScopedVectors(database.engine(self._url, what="the semantic cache"))
                # SQLStorage itself rather than CacheBase("postgresql"), whose driver check asks for
                # psycopg2 (and would pip-install it); psycopg 3 serves both GPTCache's tables and ours
                scalars = SQLStorage(
                    db_type="postgresql" if database.is_postgres(self._url) else "sqlite",
                    url=self._url,
                    table_name="rag_cache",
                )
                manager = get_data_manager(
                    scalars, vectors, max_size=self._max_entries, clean_size=max(1, self._max_entries // 10)
                )
                cache = Cache()
                # vectors come from the project's embedder (the question's vector is already
                # computed for routing); GPTCache's embedding step passes them through
                cache.init(embedding_func=lambda vector, **_: vector, data_manager=manager)
                self._opened = (vectors, manager, cache)
            return self._opened

    @property
    def _vectors(self) -> ScopedVectors:
        return self._open()[0]

    @property
    def _manager(self) -> Any:
        return self._open()[1]

    @property
    def cache(self) -> Any:
        """GPTCache's ``Cache`` object (opens the database)."""
        return self._open()[2]

    @contextlib.contextmanager
    def _in(self, scope: str) -> Iterator[None]:
        """Under the lock, with the vector store searching ``scope``; storage errors (a locked or
        damaged file) become ServiceUnavailable, which the graph treats as a cache miss."""
        with self._lock:
            try:
                self._vectors.scope = scope_key(scope)
                yield
            except (OSError, ValueError) as e:
                raise ServiceUnavailable(
                    f"the semantic cache at {self.where} failed ({e}); answering without it"
                ) from e
            except Exception as e:  # SQLAlchemy's errors (a locked file, a database gone)
                if type(e).__module__.startswith("sqlalchemy"):
                    raise ServiceUnavailable(f"the semantic cache at {self.where} failed ({e})") from e
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
            "path": self.where,
            "bytes": self.path.stat().st_size if self.path and self.path.exists() else None,
            "entries": sum(scopes.values()),
            "scopes": len(scopes),
            "ttl_seconds": self.ttl_seconds,
        }

    def clear(self, scope: str | None = None) -> int:
        """Forget one scope, or everything; returns how many entries went."""
        with self._lock:
            keys = self._vectors.ids(None if scope is None else scope_key(scope))
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
            if self._opened is not None and not self._vectors._closed:
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
