"""Document frequencies of a lexical collection's terms: the idf the graders weigh question terms by.

The engine applies its own IDF to lexical search but does not expose the frequencies, and the
graders, the extractive answerer and pseudo-relevance feedback need a term's idf by name. The
table here holds, per term dimension (``lexical.term_key``), how many chunks contain it, and the
number of chunks. It is read from the stored sparse vectors once (0.5 s at 12.5k chunks: no text
is tokenized again), saved under ``DATA_DIR`` with the collection version it describes, and
then moved along with each write: a write adds its chunks' terms and takes away those of the
chunks it replaces or deletes, so that a 10-document change costs those documents only.

The idf is rank-bm25's Okapi formula over these counts, ``ln((N − n + 0.5) / (n + 0.5))`` with
terms in more than half the chunks floored to a quarter of the mean idf (``BM25Okapi.idf``), on
which the graders' thresholds were calibrated. Ranking weighs a term by the same Okapi idf, floored
at a quarter of the engine's idf for that term so that no term of a small collection weighs
nothing or less (``ranking_scale``): the engine applies its own IDF, so a query scales each term
by the ratio of the two (``lexical``; decision 0003 measures the forms). The
table also sums the chunks' lengths: BM25's average length, which the stored weights were computed
with, is checked against it after an ingestion (``lexical.AVGDL_TOLERANCE``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence, ValuesView
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from components.stores.lexical import ChunkTerms, engine_idf, term_key

log = logging.getLogger(__name__)

FORMAT = 2
EPSILON = 0.25
"""rank-bm25's floor for terms in more than half the chunks, as a share of the mean idf."""
RANKING_FLOOR = 0.25
"""The least share of the engine's idf the ranking gives a term: Okapi's idf falls to zero at half
the chunks and below it past that, so without a floor "salary" in one of two notes finds nothing."""


def _counts(chunks: Iterable[ChunkTerms]) -> tuple[np.ndarray, np.ndarray, int, float]:
    """Distinct keys over these chunks, how many chunks hold each, how many chunks there were and
    their tokens in all."""
    chunks = list(chunks)
    if not chunks:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0, 0.0
    keys, df = np.unique(np.concatenate([np.asarray(c.keys, dtype=np.int64) for c in chunks]), return_counts=True)
    return keys, df.astype(np.int64), len(chunks), float(sum(c.length for c in chunks))


@dataclass(frozen=True)
class TermStats:
    """Per term dimension (sorted), the number of chunks holding it; ``chunks`` in all, of
    ``tokens`` tokens together; at ``version``."""

    keys: np.ndarray
    df: np.ndarray
    chunks: int
    tokens: float
    version: int
    tokenizer: str

    @classmethod
    def of(cls, chunks: Iterable[ChunkTerms], *, version: int, tokenizer: str) -> TermStats:
        keys, df, n, tokens = _counts(chunks)
        return cls(keys, df, n, tokens, version, tokenizer)

    @property
    def avgdl(self) -> float:
        """The chunks' average length in tokens (BM25's ``avgdl``; 0 when there are none)."""
        return self.tokens / self.chunks if self.chunks else 0.0

    def moved(self, *, removed: Sequence[ChunkTerms], added: Sequence[ChunkTerms], version: int) -> TermStats:
        """The table after a write that replaced or deleted ``removed`` chunks and wrote ``added``."""
        add_k, add_n, n_add, t_add = _counts(added)
        rem_k, rem_n, n_rem, t_rem = _counts(removed)
        keys = np.union1d(np.union1d(self.keys, add_k), rem_k)
        df = np.zeros(len(keys), np.int64)
        df[np.searchsorted(keys, self.keys)] += self.df
        df[np.searchsorted(keys, add_k)] += add_n
        df[np.searchsorted(keys, rem_k)] -= rem_n
        keep = df > 0
        chunks = self.chunks + n_add - n_rem
        tokens = max(0.0, self.tokens + t_add - t_rem) if chunks else 0.0
        return TermStats(keys[keep], df[keep], chunks, tokens, version, self.tokenizer)

    @classmethod
    def combined(cls, tables: Sequence[TermStats]) -> TermStats:
        """Several collections' tables as one corpus: each term's chunks and the chunks and tokens
        summed (the idf a question is weighed by when it reads them together). The version is the
        sum of theirs, so a write to any of them moves it."""
        if not tables:
            raise ValueError("no term statistics to combine")
        signatures = {t.tokenizer for t in tables}
        if len(signatures) > 1:
            raise ValueError(f"term statistics of different tokenizers cannot be combined: {sorted(signatures)}")
        keys = np.unique(np.concatenate([t.keys for t in tables]))
        df = np.zeros(len(keys), np.int64)
        for t in tables:
            df[np.searchsorted(keys, t.keys)] += t.df
        return cls(
            keys,
            df,
            sum(t.chunks for t in tables),
            sum(t.tokens for t in tables),
            sum(t.version for t in tables),
            tables[0].tokenizer,
        )

    def _okapi(self) -> np.ndarray:
        """Okapi's ``ln((N − n + 0.5)/(n + 0.5))`` per term, unfloored."""
        n = np.asarray(self.df, dtype=np.float64)
        return np.log(self.chunks - n + 0.5) - np.log(n + 0.5)

    def idf(self) -> TermIdf:
        raw = self._okapi()
        if len(raw):
            raw = np.where(raw < 0, EPSILON * float(raw.mean()), raw)
        return TermIdf(self.keys, raw)

    def ranking_scale(self) -> TermIdf:
        """Per term, the factor that turns the engine's IDF into the ranking's: Okapi's
        ``ln((N − n + 0.5)/(n + 0.5))``, at least a quarter of the engine's
        ``ln(1 + (N − n + 0.5)/(n + 0.5))`` (so positive, and never rising with ``n``), over the
        engine's. The floor only touches terms in more than about 45% of the chunks."""
        engine = engine_idf(np.asarray(self.df, dtype=np.float64), self.chunks)
        return TermIdf(self.keys, np.maximum(self._okapi() / engine, RANKING_FLOOR) if len(engine) else engine)

    # ------------------------------------------------------------------ file
    def save(self, path: Path) -> None:
        """Write atomically (temp file + rename): a reader never loads half a table."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        header = {
            "format": FORMAT,
            "version": self.version,
            "chunks": self.chunks,
            "tokens": self.tokens,
            "tokenizer": self.tokenizer,
        }
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(f, keys=self.keys, df=self.df, header=np.array(json.dumps(header)))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: Path) -> TermStats | None:
        """The saved table, or None when there is none or it is unreadable (it is then rebuilt)."""
        if not path.exists():
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                header = json.loads(str(z["header"]))
                if header.get("format") != FORMAT:
                    return None
                return cls(
                    z["keys"],
                    z["df"],
                    int(header["chunks"]),
                    float(header["tokens"]),
                    int(header["version"]),
                    str(header["tokenizer"]),
                )
        except Exception as e:  # a damaged table is rebuilt from the store, never fatal
            log.warning("term statistics %s unreadable (%s); rebuilding", path, e)
            return None


class TermIdf(Mapping[str, float]):
    """A term's idf by name, over a table kept by term dimension (read-only).

    Terms are stored by their hash, so the names cannot be listed: iterating the keys raises, while
    lookups, ``len`` and ``values`` (the largest idf stands for a term never seen) work."""

    def __init__(self, keys: np.ndarray, idf: np.ndarray) -> None:
        self._keys = keys
        self._idf = idf

    def __getitem__(self, term: str) -> float:
        k = term_key(term)
        i = int(np.searchsorted(self._keys, k))
        if i < len(self._keys) and int(self._keys[i]) == k:
            return float(self._idf[i])
        raise KeyError(term)

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.get(term) is not None

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        raise TypeError("terms are kept by their hash: look a term up by name instead of listing them")

    def values(self) -> ValuesView[float]:
        return _Values(self._idf)


class _Values(ValuesView[float]):
    def __init__(self, idf: np.ndarray) -> None:
        self._idf = idf

    def __iter__(self) -> Iterator[float]:
        return iter(self._idf.tolist())

    def __len__(self) -> int:
        return len(self._idf)

    def __contains__(self, value: object) -> bool:
        return bool(np.any(self._idf == value))


def path_for(data_dir: Path, collection: str, location: str) -> Path:
    """Where a collection's table lives under ``DATA_DIR``: keyed by the store's location and the
    collection's name, so that two stores' collections of one name keep two tables."""
    key = hashlib.sha1(f"{location}\x00{collection}".encode()).hexdigest()[:12]
    return Path(data_dir) / "bm25" / f"{collection}-{key}.terms.npz"
