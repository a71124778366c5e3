"""BM25 in memory over token lists, with rank-bm25's statistics: the baseline the in-store BM25 is measured against.

Before BM25 moved into the store (docs/decisions/0016-embedded-engine-candidate.md), the embedded
store's lexical side was this index: rank-bm25's ``BM25Okapi`` supplies the statistics (idf with
its epsilon floor, document lengths, k1 and b), and queries use postings lists built from the
same statistics, scoring only the chunks that contain a query term, vectorised with numpy (the
scores equal ``BM25Okapi.get_scores``; a unit test holds that). ``evals.scale`` and
``evals.lexical_engine`` run it as "today's path" beside the engine; ``save`` and ``read`` keep it
in a pickle, as that path did.
"""

from __future__ import annotations

import logging
import os
import pickle
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
from rank_bm25 import BM25Okapi

log = logging.getLogger(__name__)

CACHE_FORMAT = 5
"""What ``save`` writes: a header pickled ahead of the index."""


@dataclass
class BM25Hit:
    point_id: str
    index: int
    score: float


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
        #: chunk payloads, for a caller that filters on them
        self.payloads = payloads if payloads is not None else [{"doc_id": d} for d in doc_ids]
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


def save(index: BM25Index, path: Path) -> None:
    """Write atomically (temp file + rename) so a reader never loads half a file.

    The file holds two pickles: a small header (format, version, chunks, tokenizer) and then the
    index, so that a reader learns whether the index is the one it wants without loading it
    (0.7 s at 12.5k chunks).
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


def read(path: Path) -> BM25Index | None:
    """The index a file ``save`` wrote holds, whatever its version and tokenizer; None when there is
    none, or it is unreadable or of another format."""
    if not path.exists():
        return None
    try:
        with path.open("rb") as f:
            header = pickle.load(f)
            if not isinstance(header, dict) or header.get("format") != CACHE_FORMAT:
                return None
            index = pickle.load(f)
    except Exception as e:  # a damaged file reads as none: the caller builds the index again
        log.warning("BM25 index %s unreadable (%s)", path, e)
        return None
    return index if isinstance(index, BM25Index) else None
