"""BM25 over the chunks stored in Qdrant, cached on disk, rebuilt when the collection changes.

rank-bm25's ``BM25Okapi`` supplies the statistics (idf with its epsilon floor, document
lengths, k1 and b). Its ``get_scores`` walks every document in Python for every query term,
which grows linearly with the corpus; queries here instead use postings lists built from the
same statistics and score only chunks that contain a query term, vectorised with numpy. The
scores are identical to ``BM25Okapi.get_scores`` (a unit test holds that).

The index is built from what is in Qdrant, so every process sees the same corpus, and it is
saved under DATA_DIR keyed by the collection's version (bumped by each ingestion write).
"""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from rank_bm25 import BM25Okapi

from components.stores.corpus import Selects, field_values
from components.stores.lexical import search_text
from components.stores.qdrant import QdrantIndex
from components.text.tokenizer import Tokenizer

log = logging.getLogger(__name__)

CACHE_FORMAT = 5  # 4: aliases in the indexed text; 5: a header pickled ahead of the index


@dataclass
class BM25Hit:
    point_id: str
    index: int
    score: float


def _countable(v: Any) -> bool:
    """A value a facet counts (as the store's keyword facets do): a non-empty string or a number."""
    return isinstance(v, (str, int, float)) and not isinstance(v, bool) and v != ""


class BM25Index:
    """An immutable BM25 index over (point id, doc id, tokens) triples."""

    def __init__(
        self,
        point_ids: list[str],
        doc_ids: list[str],
        corpus_tokens: list[list[str]],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        signature: str = "",
        version: int = -1,
        payloads: list[dict[str, Any]] | None = None,
    ) -> None:
        self.point_ids = point_ids
        self.doc_ids = doc_ids
        #: chunk payloads, so filters apply to the BM25 side as they do in Qdrant, and results
        #: can be shown when the vector store is down
        self.payloads = payloads if payloads is not None else [{"doc_id": d} for d in doc_ids]
        #: set when served from cache without the store confirming the version
        self.stale = False
        self._by_parent: dict[str, list[int]] | None = None
        self._by_id: dict[str, int] | None = None
        self.signature = signature
        self.version = version
        self.k1, self.b = k1, b
        self.size = len(point_ids)
        if self.size == 0:
            self._bm25: BM25Okapi | None = None
            self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
            self._norm = np.zeros(0)
            return
        # BM25Okapi divides by zero on an all-empty corpus; a placeholder token avoids that
        self._bm25 = BM25Okapi([t or ["\x00"] for t in corpus_tokens], k1=k1, b=b)
        lengths = np.asarray(self._bm25.doc_len, dtype=np.float64)
        # denominator part that depends only on the chunk: k1 * (1 - b + b * len / avgdl)
        self._norm = k1 * (1.0 - b + b * lengths / self._bm25.avgdl)
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for i, freqs in enumerate(self._bm25.doc_freqs):
            for term, tf in freqs.items():
                entry = postings.setdefault(term, ([], []))
                entry[0].append(i)
                entry[1].append(tf)
        self._postings = {
            t: (np.asarray(ix, dtype=np.int32), np.asarray(tf, dtype=np.float64)) for t, (ix, tf) in postings.items()
        }

    def payload_of(self, point_id: str) -> dict[str, Any] | None:
        """The payload of one point (a dict built on first use), or None if the index lacks it."""
        by_id: dict[str, int] | None = getattr(self, "_by_id", None)  # absent in indexes pickled before it
        if by_id is None:
            by_id = self._by_id = {pid: i for i, pid in enumerate(self.point_ids)}
        i = by_id.get(point_id)
        return None if i is None else self.payloads[i]

    @property
    def restricted(self) -> bool:
        """Whether any chunk carries access groups (computed once per index version)."""
        found: bool | None = self.__dict__.get("_restricted")
        if found is None:
            found = any(p.get("access") for p in self.payloads)
            self.__dict__["_restricted"] = found
        return found

    @property
    def languages(self) -> frozenset[str]:
        """The languages the chunks are written in (computed once per index version)."""
        found: frozenset[str] | None = self.__dict__.get("_languages")
        if found is None:
            found = frozenset(str(p["language"]) for p in self.payloads if p.get("language"))
            self.__dict__["_languages"] = found
        return found

    def payloads_of_parents(self, parent_ids: Iterable[str]) -> list[dict[str, Any]]:
        """Payloads of the chunks of these parent sections, in chunk order (a dict built on first use).

        Parent documents are read from here in the embedded store: qdrant-client local mode
        evaluates a payload filter in Python over every point (~150 ms at 12k chunks).
        """
        by_parent = getattr(self, "_by_parent", None)  # indexes unpickled from older caches lack it
        if by_parent is None:
            by_parent = {}
            for i, p in enumerate(self.payloads):
                pid = p.get("parent_id")
                if pid:
                    by_parent.setdefault(str(pid), []).append(i)
            self._by_parent = by_parent
        out: list[dict[str, Any]] = []
        for pid in dict.fromkeys(parent_ids):
            rows = sorted(by_parent.get(pid, []), key=lambda i: int(self.payloads[i].get("chunk_index") or 0))
            out.extend(self.payloads[i] for i in rows)
        return out

    def values(self, key: str, where: Sequence[Selects] = ()) -> dict[str, int]:
        """Chunks per value of a field (a list field's elements one by one) among those passing
        ``where``, most first."""
        counts: Counter[str] = Counter()
        for p, passes in zip(self.payloads, self._passing(where), strict=True):
            if passes:
                counts.update(str(v) for v in field_values(p, key) if _countable(v))
        return dict(sorted(counts.items(), key=lambda x: (-x[1], x[0])))

    def documents(self) -> int:
        return len(set(self.doc_ids))

    def documents_per_value(self, key: str, where: Sequence[Selects] = ()) -> dict[str, int]:
        seen: dict[str, set[str]] = {}
        for p, passes in zip(self.payloads, self._passing(where), strict=True):
            for v in field_values(p, key) if passes else ():
                if _countable(v):
                    seen.setdefault(str(v), set()).add(str(p.get("doc_id")))
        return dict(sorted(((v, len(d)) for v, d in seen.items()), key=lambda x: (-x[1], x[0])))

    def _passing(self, where: Sequence[Selects]) -> Iterator[bool]:
        """For each chunk, whether it passes every condition."""
        return (all(c.test(p) for c in where) for p in self.payloads)

    def admits_any(self, where: Sequence[Selects]) -> bool:
        return any(self._passing(where))

    def top(self, tokens: Sequence[str], *, limit: int, where: Sequence[Selects]) -> list[tuple[dict[str, Any], float]]:
        allowed = np.fromiter(self._passing(where), dtype=bool, count=self.size) if where else None
        return [(self.payloads[h.index], h.score) for h in self.search(list(tokens), limit=limit, allowed=allowed)]

    @property
    def idf(self) -> Mapping[str, float]:
        """Each term's idf, read-only and not copied: graders read it on every request."""
        return MappingProxyType(self._bm25.idf) if self._bm25 else MappingProxyType({})

    def _accumulate(self, query_tokens: Iterable[str]) -> tuple[np.ndarray, np.ndarray]:
        """Scores of every chunk (zeros where no term matched) and the chunks that matched."""
        total = np.zeros(self.size)
        touched = np.zeros(self.size, dtype=bool)
        if self._bm25 is None:
            return total, touched
        k1 = self.k1
        for term in query_tokens:
            hit = self._postings.get(term)
            if hit is None:
                continue
            ix, tf = hit
            idf = self._bm25.idf.get(term, 0.0)
            total[ix] += idf * tf * (k1 + 1.0) / (tf + self._norm[ix])
            touched[ix] = True
        return total, touched

    def scores(self, query_tokens: Iterable[str]) -> dict[int, float]:
        """Chunk index -> BM25 score, for chunks holding at least one query term."""
        total, touched = self._accumulate(query_tokens)
        return {int(i): float(total[i]) for i in np.flatnonzero(touched)}

    def search(self, query_tokens: list[str], *, limit: int = 10, allowed: np.ndarray | None = None) -> list[BM25Hit]:
        """Top chunks by BM25, ties broken by point id; ``allowed`` is a boolean mask (the filter).

        Selection stays in numpy (partition, then sort only the few survivors): with common
        terms most chunks match, and a Python sort over all of them dominated at 100k chunks.
        """
        total, touched = self._accumulate(query_tokens)
        if allowed is not None:
            touched &= allowed
        cand = np.flatnonzero(touched)
        if cand.size == 0 or limit <= 0:
            return []
        neg = -total[cand]
        if cand.size > limit:
            cut = np.partition(neg, limit - 1)[limit - 1]
            keep = neg <= cut  # the top ``limit`` and anything tied with the last of them
            cand, neg = cand[keep], neg[keep]
        order = np.lexsort((self._id_rank[cand], neg))[:limit]
        return [BM25Hit(self.point_ids[i], int(i), float(total[i])) for i in cand[order]]

    @property
    def _id_rank(self) -> np.ndarray:
        """Position of each chunk's point id in sorted order, for deterministic tie-breaks."""
        rank = self.__dict__.get("_id_rank_cache")
        if rank is None or len(rank) != self.size:
            rank = np.empty(self.size, dtype=np.int64)
            rank[np.argsort(np.asarray(self.point_ids, dtype=object))] = np.arange(self.size)
            self.__dict__["_id_rank_cache"] = rank
        return rank


def cache_path(data_dir: Path, collection: str, location: str) -> Path:
    key = hashlib.sha1(f"{location}\x00{collection}".encode()).hexdigest()[:12]
    return Path(data_dir) / "bm25" / f"{collection}-{key}.pkl"


def save(index: BM25Index, path: Path) -> None:
    """Write atomically (temp file + rename) so a reader never loads half a file.

    The file holds two pickles: a small header (format, version, chunks, tokenizer) and then the
    index, so that a reader learns whether the index is the one it wants (``rag status``, a
    stale cache) without loading it (0.7 s at 12.5k chunks).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    header = {"format": CACHE_FORMAT, "version": index.version, "chunks": index.size, "tokenizer": index.signature}
    try:
        with os.fdopen(fd, "wb") as f:
            pickle.dump(header, f, protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(index, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _read(path: Path, *, wanted: Callable[[dict[str, Any]], bool]) -> BM25Index | None:
    """The cached index when its header is of this format and ``wanted`` accepts it, else None."""
    if not path.exists():
        return None
    try:
        with path.open("rb") as f:
            header = pickle.load(f)
            if not isinstance(header, dict) or header.get("format") != CACHE_FORMAT or not wanted(header):
                return None
            index = pickle.load(f)
    except Exception as e:  # a damaged cache is rebuilt, never fatal
        log.warning("BM25 cache %s unreadable (%s); rebuilding", path, e)
        return None
    return index if isinstance(index, BM25Index) else None


def load(path: Path, *, version: int, signature: str) -> BM25Index | None:
    """The cached index if it matches this collection version and tokenizer, else None."""
    return _read(path, wanted=lambda h: h.get("version") == version and h.get("tokenizer") == signature)


def read(path: Path) -> BM25Index | None:
    """The index a cache file holds, whatever its version and tokenizer (for the tool that wrote it)."""
    return _read(path, wanted=lambda h: True)


def load_any(path: Path, *, signature: str) -> BM25Index | None:
    """Whatever version is cached (for when the store cannot say which version is current)."""
    return _read(path, wanted=lambda h: h.get("tokenizer") == signature)


def cache_state(path: Path) -> dict[str, Any]:
    """What ``rag status`` reports about the cache, from its header (the index is not loaded)."""
    if not path.exists():
        return {"path": str(path), "exists": False}
    try:
        with path.open("rb") as f:
            header = pickle.load(f)
    except Exception as e:
        return {"path": str(path), "exists": True, "error": str(e)}
    if not isinstance(header, dict) or header.get("format") != CACHE_FORMAT:
        return {"path": str(path), "exists": True, "error": "written by an older version: rebuilt on next query"}
    return {
        "path": str(path),
        "exists": True,
        "version": header.get("version"),
        "chunks": header.get("chunks"),
        "tokenizer": header.get("tokenizer"),
    }


def build_from_store(index: QdrantIndex, tokenizer: Tokenizer, *, version: int) -> BM25Index:
    """A BM25 index over every chunk stored in ``index`` (payloads kept), at the store's ``version``."""
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
