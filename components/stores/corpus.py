"""What the query path knows of a collection as a whole, read from the store.

Beside ranking, the graph asks a few questions of the whole collection: each term's idf (the
graders, the extractive answerer, pseudo-relevance feedback), which languages and access groups
it holds (whether to ask for a translation, whether to add the access condition), the chunks of
a parent section, the values of a field (query analysis trusts only these; "did you mean"), how
many documents carry each value (``rag status --facets``), whether a filter admits anything (why
a search came back empty), and a lexical top-k for feedback terms.

``Corpus`` is that set of questions, and ``StoreCorpus`` answers them: facets, counts and
filtered scrolls over the store's payload indexes, the store's BM25 (``components/stores/lexical.py``),
and the term statistics of ``termstats``, moved along with each write. Nothing is rebuilt after
a write, whatever the collection's size.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import qdrant_edge as qe

from components.resilience.errors import ServiceUnavailable
from components.stores.lexical import AVGDL_TOLERANCE, ChunkTerms, LexicalIndex
from components.stores.termstats import TermStats

log = logging.getLogger(__name__)

ACCESS_KEY = "access"
"""Payload key of a chunk's access groups (empty or absent: public)."""


def field(payload: dict[str, Any], key: str) -> Any:
    """A (dotted) payload field's raw value, None when absent: ``metadata.year`` reads a nested field."""
    cur: Any = payload
    for part in key.split("."):
        if not isinstance(cur, dict):
            return None
        cur = cur.get(part)
    return cur


def field_values(payload: dict[str, Any], key: str) -> list[Any]:
    """The values of a (dotted) payload field, a list field's elements one by one; [] when absent."""
    cur = field(payload, key)
    return cur if isinstance(cur, list) else ([] if cur is None else [cur])


class Selects(Protocol):
    """One filter condition (``components.retrieval.filters.Condition``), as the store evaluates it."""

    @property
    def qdrant(self) -> Any: ...


class Corpus(Protocol):
    """The questions the query path asks of a whole collection (see the module's docstring)."""

    version: int
    size: int

    @property
    def idf(self) -> Mapping[str, float]: ...

    @property
    def ranking(self) -> Mapping[str, float]: ...

    @property
    def languages(self) -> frozenset[str]: ...

    @property
    def restricted(self) -> bool: ...

    def payloads_of_parents(self, parent_ids: Iterable[str]) -> list[dict[str, Any]]: ...

    def values(self, key: str, where: Sequence[Selects] = ()) -> dict[str, int]:
        """Chunks per value of a field (a list field's elements one by one), among the chunks that
        pass ``where`` (a caller's access scope: what it may not see, it is not told of)."""
        ...

    def documents(self) -> int: ...

    def documents_per_value(self, key: str, where: Sequence[Selects] = ()) -> dict[str, int]: ...

    def admits_any(self, where: Sequence[Selects]) -> bool:
        """Whether any chunk passes every condition."""
        ...

    def top(self, tokens: Sequence[str], *, limit: int, where: Sequence[Selects]) -> list[tuple[dict[str, Any], float]]:
        """The best chunks by BM25 for these query tokens among those passing ``where``: (payload, score)."""
        ...


def _all(where: Sequence[Selects]) -> qe.Filter | None:
    return qe.Filter(must=[c.qdrant for c in where]) if where else None


class _Weighed:
    """What a corpus reads off its term statistics: version, size, each term's idf and ranking scale."""

    def __init__(self, terms: TermStats) -> None:
        self.terms = terms
        self.version = terms.version
        self.size = terms.chunks
        self._idf = terms.idf()
        self._ranking = terms.ranking_scale()

    @property
    def idf(self) -> Mapping[str, float]:
        return self._idf

    @property
    def ranking(self) -> Mapping[str, float]:
        """Per term, what a BM25 query scales its count by (``TermStats.ranking_scale``)."""
        return self._ranking


class StoreCorpus(_Weighed):
    """``Corpus`` over a collection in the store: every answer read there."""

    def __init__(self, lexical: LexicalIndex, terms: TermStats) -> None:
        super().__init__(terms)
        self.lexical = lexical
        self.index = lexical.index
        self._memo: dict[str, Any] = {}

    @property
    def languages(self) -> frozenset[str]:
        if "languages" not in self._memo:
            self._memo["languages"] = frozenset(self.index.facet("language"))
        found: frozenset[str] = self._memo["languages"]
        return found

    @property
    def restricted(self) -> bool:
        if "restricted" not in self._memo:
            shared = qe.Filter(must_not=[qe.IsEmptyCondition(ACCESS_KEY)])
            self._memo["restricted"] = self.index.count(shared) > 0
        return bool(self._memo["restricted"])

    def payloads_of_parents(self, parent_ids: Iterable[str]) -> list[dict[str, Any]]:
        return self.index.chunks_by_parent(list(parent_ids))

    def values(self, key: str, where: Sequence[Selects] = ()) -> dict[str, int]:
        """Chunks per value; {} for a field the store cannot count (no keyword index on it)."""
        try:
            return self.index.facet(key, where=_all(where))
        except ServiceUnavailable:
            raise
        except Exception as e:  # an unindexed field: "did you mean" has nothing to offer, nothing fails
            log.debug("no facet on %s: %s", key, e)
            return {}

    def documents(self) -> int:
        """Every stored document has its chunk 0 (a write puts all of a document's chunks at once)."""
        first = qe.FieldCondition(key="chunk_index", match=qe.MatchValue(0))
        return self.index.count(qe.Filter(must=[first]))

    def documents_per_value(self, key: str, where: Sequence[Selects] = ()) -> dict[str, int]:
        counts: dict[str, int] = {}
        for value, chunks in self.values(key, where).items():
            value_is = qe.FieldCondition(key=key, match=qe.MatchValue(value))
            only = qe.Filter(must=[value_is, *(c.qdrant for c in where)])
            # the value's chunks bound its documents: a facet that long never cuts the count short
            counts[value] = len(self.index.facet("doc_id", where=only, limit=max(1, chunks)))
        return dict(sorted(counts.items(), key=lambda x: (-x[1], x[0])))

    def admits_any(self, where: Sequence[Selects]) -> bool:
        return self.index.count(_all(where)) > 0

    def top(self, tokens: Sequence[str], *, limit: int, where: Sequence[Selects]) -> list[tuple[dict[str, Any], float]]:
        hits = self.lexical.search(tokens, limit=limit, query_filter=_all(where), scale=self._ranking)
        return [(dict(h.payload or {}), float(h.score)) for h in hits]


class MergedCorpus(_Weighed):
    """``Corpus`` over several collections read together (a question asked of notes and papers at
    once): each term's idf from their summed statistics, as if they were one collection; languages,
    values and counts the union; restricted when any is, so the access condition is added to every
    read. ``version`` and ``size`` are the sums, so a write to any of them changes both."""

    def __init__(self, parts: Sequence[StoreCorpus]) -> None:
        if len(parts) < 2:
            raise ValueError("a merged corpus reads two collections or more")
        super().__init__(TermStats.combined([p.terms for p in parts]))
        self.parts = list(parts)

    @property
    def languages(self) -> frozenset[str]:
        return frozenset().union(*(p.languages for p in self.parts))

    @property
    def restricted(self) -> bool:
        return any(p.restricted for p in self.parts)

    def payloads_of_parents(self, parent_ids: Iterable[str]) -> list[dict[str, Any]]:
        wanted = list(parent_ids)
        return [pl for p in self.parts for pl in p.payloads_of_parents(wanted)]

    def values(self, key: str, where: Sequence[Selects] = ()) -> dict[str, int]:
        return _summed(p.values(key, where) for p in self.parts)

    def documents(self) -> int:
        return sum(p.documents() for p in self.parts)

    def documents_per_value(self, key: str, where: Sequence[Selects] = ()) -> dict[str, int]:
        counts = _summed(p.documents_per_value(key, where) for p in self.parts)
        return dict(sorted(counts.items(), key=lambda x: (-x[1], x[0])))

    def admits_any(self, where: Sequence[Selects]) -> bool:
        return any(p.admits_any(where) for p in self.parts)

    def top(self, tokens: Sequence[str], *, limit: int, where: Sequence[Selects]) -> list[tuple[dict[str, Any], float]]:
        """Each collection's best chunks by its own BM25, best first: scores of collections of one
        tokenizer and like sizes lie close, and feedback terms need only the chunks, not their order."""
        hits = [hit for p in self.parts for hit in p.top(tokens, limit=limit, where=where)]
        return sorted(hits, key=lambda h: -h[1])[:limit]


def _summed(tables: Iterable[Mapping[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for table in tables:
        for value, n in table.items():
            out[value] = out.get(value, 0) + n
    return out


def open_store_corpus(lexical: LexicalIndex, path: Path, *, version: int) -> StoreCorpus:
    """The collection at ``version``, its term statistics from ``path`` when they describe it, else
    counted from the stored vectors and saved there."""
    # facets need the payload indexes: a collection an earlier version made gets the ones it lacks
    lexical.index.index_payloads()
    terms = TermStats.load(path)
    signature = lexical.tokenizer.signature
    current = terms is not None and terms.version == version and terms.tokenizer == signature
    # a write that stopped between its points and its version leaves the count off: count again
    if terms is None or not current or terms.chunks != lexical.index.count():
        terms = TermStats.of(lexical.terms(), version=version, tokenizer=signature)
        terms.save(path)
        log.info("term statistics of %s v%d counted: %d chunks", lexical.index.collection, version, terms.chunks)
    return StoreCorpus(lexical, terms)


def record_write(path: Path, *, removed: Sequence[ChunkTerms], added: Sequence[ChunkTerms], version: int) -> bool:
    """Move the saved term statistics along a write that took the collection to ``version``;
    ``removed``: the terms of the chunks it replaced or deleted, ``added``: of those it wrote.
    Statistics of another version than the one before are left for the next read to count again
    (another process wrote in between, or none were saved). Whether they were moved."""
    terms = TermStats.load(path)
    if terms is None or terms.version != version - 1:
        return False
    try:
        terms.moved(removed=removed, added=added, version=version).save(path)
    except OSError as e:  # the write itself is done: the next read counts the statistics again
        log.warning("term statistics not moved along the write (%s); they are counted again on next use", e)
        return False
    return True


def settle_lengths(lexical: LexicalIndex, path: Path, *, version: int) -> int:
    """After an ingestion: when the stored weights' average length is more than
    ``AVGDL_TOLERANCE`` from the collection's, rewrite them with the collection's (a new
    collection's first batch fixed an estimate; later writes move the average). The rewrite bumps
    the collection's version (rankings change) and moves the term statistics along. How many chunks
    were rewritten (0: nothing to do).

    An interrupted rewrite leaves some chunks weighted for the new average under the old
    parameters: their counts still read back (the two averages differ by a few percent, the counts
    are whole numbers), and the next ingestion finds the same gap and finishes it."""
    params = lexical.params()
    terms = TermStats.load(path)
    if params is None or terms is None or terms.version != version or not terms.chunks:
        return 0  # no statistics of this version: the next ingestion looks again
    if abs(terms.avgdl / params.avgdl - 1.0) <= AVGDL_TOLERANCE:
        return 0
    done = lexical.reweigh(terms.avgdl)
    version = lexical.index.bump_version()
    record_write(path, removed=[], added=[], version=version)
    log.info(
        "%s: BM25 weights rewritten for an average length of %.1f tokens (were %.1f): %d chunks",
        lexical.index.collection,
        terms.avgdl,
        params.avgdl,
        done,
    )
    return done
