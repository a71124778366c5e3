"""The collection as the query path sees it: the store answers what a pass over every stored payload
answers (rank-bm25's statistics for the idf and the lexical top), and the term statistics moved
along writes are those counted afresh."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from components.retrieval.filters import Condition, FieldFilter, SearchFilters
from components.retrieval.results import explain_empty
from components.stores.corpus import StoreCorpus, field_values, open_store_corpus, record_write, settle_lengths
from components.stores.lexical import LexicalIndex, engine_idf, search_text, sparse_config, term_key
from components.stores.qdrant import QdrantIndex
from components.stores.termstats import TermStats
from components.text.tokenizer import Tokenizer

DIM = 4
NOTES: dict[str, dict[str, Any]] = {
    "miso": {"vault": "home", "language": "ja", "tags": ["料理"], "text": ["味噌汁の出汁は昆布で取る。", "豆腐も。"]},
    "ramen": {"vault": "home", "language": "ja", "tags": ["料理", "麺"], "text": ["豚骨を煮込む。"]},
    "budget": {"vault": "work", "language": "en", "tags": ["money"], "text": ["The budget covers travel."]},
    "fairs": {"vault": "work", "language": "en", "access": ["sales"], "text": ["Trade fairs: the travel budget."]},
    "garden": {"vault": "home", "language": "en", "text": ["Water the monstera.", "The basil wants water daily."]},
}


def chunks(doc: str, note: dict[str, Any]) -> list[dict[str, Any]]:
    meta = {k: v for k, v in note.items() if k != "text"}
    n = len(note["text"])
    return [
        {"doc_id": doc, "chunk_index": i, "total_chunks": n, "parent_id": f"{doc}#p", "title": doc, "text": t, **meta}
        for i, t in enumerate(note["text"])
    ]


def write(index: QdrantIndex, tok: Tokenizer, notes: dict[str, dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """Write these notes as one ingestion batch would; (the replaced chunks' terms, the written ones')."""
    index.ensure(embedding_model="m", dim=DIM, sparse=sparse_config())
    batch = [chunks(d, n) for d, n in notes.items()]
    lexical = LexicalIndex(index, tok)
    weights = lexical.weights(batch)
    assert weights is not None
    replaced = lexical.terms(list(notes))
    rng = np.random.default_rng(7)
    index.write([(b[0]["doc_id"], b, rng.normal(size=(len(b), DIM))) for b in batch], sparse=weights)
    return replaced, lexical.written(weights[1])


@pytest.fixture
def store(tmp_path: Path) -> Any:
    index = QdrantIndex(collection="rag", path=tmp_path / "qdrant")
    tok = Tokenizer()
    write(index, tok, NOTES)
    version = index.bump_version()
    yield index, tok, tmp_path / "terms.npz", version
    index.close()


class EveryPayload:
    """The questions ``Corpus`` asks, answered by a pass over every stored payload: the oracle."""

    def __init__(self, index: QdrantIndex, tok: Tokenizer, version: int) -> None:
        points = sorted(index.scroll(), key=lambda p: str(p.id))
        self.ids = [str(p.id) for p in points]
        self.payloads = [dict(p.payload or {}) for p in points]
        self.tokens = [tok(search_text(pl)) for pl in self.payloads]
        self.okapi = BM25Okapi(self.tokens)
        self.version, self.size = version, len(points)

    @property
    def idf(self) -> Mapping[str, float]:
        return self.okapi.idf

    @property
    def languages(self) -> frozenset[str]:
        return frozenset(str(p["language"]) for p in self.payloads if p.get("language"))

    @property
    def restricted(self) -> bool:
        return any(p.get("access") for p in self.payloads)

    def _passing(self, where: Sequence[Condition]) -> list[dict[str, Any]]:
        return [p for p in self.payloads if all(c.test(p) for c in where)]

    def payloads_of_parents(self, parent_ids: Iterable[str]) -> list[dict[str, Any]]:
        wanted = list(dict.fromkeys(parent_ids))
        chosen = [p for p in self.payloads if p.get("parent_id") in wanted]
        return sorted(chosen, key=lambda p: (wanted.index(p["parent_id"]), p["chunk_index"]))

    def values(self, key: str, where: Sequence[Condition] = ()) -> dict[str, int]:
        counts = Counter(str(v) for p in self._passing(where) for v in field_values(p, key) if v not in ("", None))
        return dict(sorted(counts.items(), key=lambda x: (-x[1], x[0])))

    def documents(self) -> int:
        return len({p["doc_id"] for p in self.payloads})

    def documents_per_value(self, key: str, where: Sequence[Condition] = ()) -> dict[str, int]:
        seen: dict[str, set[str]] = {}
        for p in self._passing(where):
            for v in field_values(p, key):
                seen.setdefault(str(v), set()).add(p["doc_id"])
        return dict(sorted(((v, len(d)) for v, d in seen.items()), key=lambda x: (-x[1], x[0])))

    def admits_any(self, where: Sequence[Condition]) -> bool:
        return bool(self._passing(where))

    def top(
        self, tokens: Sequence[str], *, limit: int, where: Sequence[Condition]
    ) -> list[tuple[dict[str, Any], float]]:
        scores = self.okapi.get_scores(list(tokens))
        ranked = sorted(
            (i for i, p in enumerate(self.payloads) if scores[i] > 0 and all(c.test(p) for c in where)),
            key=lambda i: (-scores[i], self.ids[i]),
        )
        return [(self.payloads[i], float(scores[i])) for i in ranked[:limit]]


def test_the_store_answers_what_every_payload_answers(store: Any) -> None:
    index, tok, path, version = store
    ours = open_store_corpus(LexicalIndex(index, tok), path, version=version)
    theirs = EveryPayload(index, tok, version)
    assert ours.size == theirs.size == 7 and ours.version == version
    assert ours.languages == theirs.languages == {"ja", "en"}
    assert ours.restricted and theirs.restricted
    assert ours.documents() == theirs.documents() == 5
    for key in ("vault", "tags", "language"):
        assert ours.values(key) == theirs.values(key), key
        assert ours.documents_per_value(key) == theirs.documents_per_value(key), key
    assert ours.documents_per_value("tags") == {"料理": 2, "money": 1, "麺": 1}
    assert ours.payloads_of_parents(["garden#p", "miso#p"]) == theirs.payloads_of_parents(["garden#p", "miso#p"])
    assert [p["text"] for p in ours.payloads_of_parents(["garden#p"])] == NOTES["garden"]["text"]
    for filters in (
        SearchFilters(vaults=["work"], language="ja"),
        SearchFilters(vaults=["hom"]),
        SearchFilters(tags=["料理"], where=[FieldFilter(key="vault", op="eq", value="work")]),
        SearchFilters(tags=["料理"]),
    ):
        assert explain_empty(ours, filters) == explain_empty(theirs, filters), filters
    assert "did you mean 'home'" in explain_empty(ours, SearchFilters(vaults=["hom"]))
    where = SearchFilters(vaults=["work"]).conditions()
    assert [p["doc_id"] for p, _ in ours.top(tok("travel budget"), limit=2, where=where)] == [
        p["doc_id"] for p, _ in theirs.top(tok("travel budget"), limit=2, where=where)
    ]


def test_the_idf_is_rank_bm25_s_including_its_floor(store: Any) -> None:
    index, tok, path, version = store
    ours = open_store_corpus(LexicalIndex(index, tok), path, version=version).idf
    theirs = EveryPayload(index, tok, version).idf
    terms = {t for p in index.scroll() for t in tok(search_text(dict(p.payload)))}
    assert len({term_key(t) for t in terms}) == len(terms)  # no two terms share a dimension here
    for t in terms:
        assert ours[t] == pytest.approx(theirs[t]), t
    assert any(theirs[t] > 0 for t in terms) and "never-seen" not in ours
    assert max(ours.values()) == pytest.approx(max(theirs.values()))


def test_the_ranking_weighs_every_term_positively_and_rarer_terms_more() -> None:
    for chunks in (1, 2, 7, 1000):
        df = np.arange(1, chunks + 1)
        stats = TermStats(np.arange(chunks), df, chunks, 10.0 * chunks, 1, "tok")
        ranking = np.array(list(stats.ranking_scale().values())) * engine_idf(df.astype(float), chunks)
        assert (ranking > 0).all(), chunks
        assert (np.diff(ranking) <= 1e-12).all(), chunks  # a term in more chunks never weighs more
        okapi = np.log((chunks - df + 0.5) / (df + 0.5))
        rare = df <= chunks * 0.4
        assert ranking[rare] == pytest.approx(okapi[rare]), chunks  # Okapi's own idf below the floor's reach


def test_two_collections_read_together_weigh_terms_as_one_collection_would(store: Any) -> None:
    index, tok, _, version = store
    lexical = LexicalIndex(index, tok)
    whole = TermStats.of(lexical.terms(), version=version, tokenizer=tok.signature)
    halves = [
        TermStats.of(lexical.terms(docs), version=1, tokenizer=tok.signature)
        for docs in (["miso", "ramen"], ["garden", *(d for d in NOTES if d not in ("miso", "ramen", "garden"))])
    ]
    together = TermStats.combined(halves)
    assert (together.chunks, together.tokens, together.version) == (whole.chunks, whole.tokens, 2)
    assert together.keys.tolist() == whole.keys.tolist() and together.df.tolist() == whole.df.tolist()
    assert list(together.idf().values()) == pytest.approx(list(whole.idf().values()))
    with pytest.raises(ValueError, match="different tokenizers"):
        TermStats.combined([halves[0], dataclasses.replace(halves[1], tokenizer="another")])


def test_statistics_moved_along_writes_equal_a_fresh_count(store: Any) -> None:
    index, tok, path, version = store
    lexical = LexicalIndex(index, tok)
    open_store_corpus(lexical, path, version=version)  # counted and saved at this version
    # an edit that shortens one note and lengthens another, then a deletion
    edited = {
        "miso": {**NOTES["miso"], "text": ["味噌を溶く。"]},
        "ramen": {**NOTES["ramen"], "text": ["麺", "スープ"]},
    }
    replaced, added = write(index, tok, edited)
    version = index.bump_version()
    assert record_write(path, removed=replaced, added=added, version=version)
    gone = lexical.terms(["garden"])
    index.delete_documents(["garden"])
    version = index.bump_version()
    assert record_write(path, removed=gone, added=[], version=version)
    moved = TermStats.load(path)
    fresh = TermStats.of(lexical.terms(), version=version, tokenizer=tok.signature)
    assert moved is not None and (moved.version, moved.chunks) == (version, fresh.chunks) == (version, 5)
    assert moved.keys.tolist() == fresh.keys.tolist() and moved.df.tolist() == fresh.df.tolist()
    # the lengths read back from the stored weights are the tokenizer's, moved along the same way
    lengths = [len(tok(search_text(dict(p.payload or {})))) for p in index.scroll()]
    assert moved.tokens == fresh.tokens == sum(lengths) and moved.avgdl == pytest.approx(np.mean(lengths))
    assert "monstera" not in StoreCorpus(lexical, moved).idf


def test_statistics_of_another_version_are_counted_again(store: Any) -> None:
    index, tok, path, version = store
    lexical = LexicalIndex(index, tok)
    open_store_corpus(lexical, path, version=version)
    # a write this process did not see (another writer, or one that stopped before its version)
    write(index, tok, {"extra": {"vault": "home", "language": "en", "text": ["A new note on tea."]}})
    assert not record_write(path, removed=[], added=[], version=version + 5)
    later = open_store_corpus(lexical, path, version=version)  # same version, but one chunk more
    assert later.size == 8 and "tea" in later.idf
    path.write_bytes(b"not a table")  # a damaged file is counted again, never fatal
    assert open_store_corpus(lexical, path, version=version).size == 8


def test_a_collection_an_earlier_version_made_gets_the_indexes_its_facets_need(tmp_path: Path) -> None:
    from components.stores.edge import EdgeClient, edge_root
    from components.stores.edge_models import VectorSpec

    client = EdgeClient(edge_root(tmp_path))
    spec = {"dense": VectorSpec(size=DIM, distance="Dot")}
    meta = {"embedding_model": "m", "dim": DIM, "version": 1}
    client.create_collection("rag", vectors_config=spec, sparse_vectors_config=sparse_config(), metadata=meta)
    client.create_payload_index("rag", "doc_id", field_schema="keyword")  # all an earlier version indexed
    index = QdrantIndex(collection="rag", path=tmp_path, client=client)
    tok = Tokenizer()
    batch = [chunks(d, n) for d, n in NOTES.items()]
    rng = np.random.default_rng(3)
    weights = LexicalIndex(index, tok).weights(batch)
    index.write([(b[0]["doc_id"], b, rng.normal(size=(len(b), DIM))) for b in batch], sparse=weights)
    corpus = open_store_corpus(LexicalIndex(index, tok), tmp_path / "terms.npz", version=1)
    assert corpus.languages == {"ja", "en"}  # a facet on an unindexed field would have failed
    assert corpus.documents_per_value("vault") == {"home": 3, "work": 2}
    index.close()


class EngineBM25(BM25Okapi):
    """rank-bm25's BM25 with the engine's idf, ``ln(1 + (N − n + 0.5)/(n + 0.5))``: what the store ranks by."""

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log1p((self.corpus_size - freq + 0.5) / (freq + 0.5))


def test_weights_a_first_batch_misjudged_are_rewritten_with_the_collection_s_average_length(tmp_path: Path) -> None:
    index = QdrantIndex(collection="rag", path=tmp_path / "qdrant")
    tok = Tokenizer()
    path = tmp_path / "terms.npz"
    lexical = LexicalIndex(index, tok)
    # a first batch of one short note fixes an average length far below the collection's
    write(index, tok, {"ramen": NOTES["ramen"]})
    version = index.bump_version()
    open_store_corpus(lexical, path, version=version)
    long = {d: {**n, "text": [" ".join(n["text"] * 6)]} for d, n in NOTES.items() if d != "ramen"}
    replaced, added = write(index, tok, long)
    version = index.bump_version()
    assert record_write(path, removed=replaced, added=added, version=version)
    every = EveryPayload(index, tok, version)
    bm25 = EngineBM25(every.tokens)
    before = lexical.params()
    assert before is not None and before.avgdl < 0.5 * bm25.avgdl

    def scores(q: str) -> tuple[dict[str, float], dict[str, float]]:
        """The store's BM25 scores of the chunks matching ``q``, and BM25's over the same tokens."""
        ours = {str(p.id): float(p.score) for p in lexical.search(tok(q), limit=10)}
        theirs = {i: float(s) for i, s in zip(every.ids, bm25.get_scores(tok(q)), strict=True) if s > 0}
        return ours, theirs

    queries = ("travel budget", "味噌汁 豆腐", "water basil")
    assert any(ours != pytest.approx(theirs, rel=1e-4) for ours, theirs in map(scores, queries))
    assert settle_lengths(lexical, path, version=version) == every.size
    after = lexical.params()
    assert after is not None and after.avgdl == pytest.approx(bm25.avgdl)
    settled = index.metadata()["version"]
    assert settled == version + 1  # rankings changed: caches keyed on the version let go
    corpus = open_store_corpus(lexical, path, version=settled)
    assert corpus.version == settled and corpus.size == every.size  # the statistics moved along
    for q in queries:  # now the store's BM25 is BM25 over the true average length
        ours, theirs = scores(q)
        assert ours == pytest.approx(theirs, rel=1e-4), q
    assert settle_lengths(lexical, path, version=settled) == 0  # within tolerance: nothing to do
    index.close()
