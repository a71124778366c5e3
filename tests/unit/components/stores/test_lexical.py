"""BM25 in the store: weights written with each chunk, searched and filtered in the engine, an edit
costing that document only; a collection without weights, or with another tokenizer's, refused
with the command that gives it them (`rag migrate`), which computes them from the stored texts."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from components.resilience.errors import CollectionOutdated
from components.retrieval.filters import SearchFilters
from components.retrieval.lexical import engine_search
from components.stores.edge_models import StoredSparse
from components.stores.lexical import (
    META_KEY,
    SPARSE,
    LexicalIndex,
    LexicalParams,
    document_vector,
    read_back,
    reweighted,
    search_text,
    sparse_config,
    term_key,
)
from components.stores.migrate import weigh
from components.stores.qdrant import QdrantIndex
from components.stores.termstats import TermStats
from components.text.tokenizer import Tokenizer

DIM = 4
TEXTS = {
    "miso": ("home", "味噌汁の出汁は昆布と鰹節で取る。豆腐とわかめを入れる。"),
    "ramen": ("home", "ラーメンのスープは豚骨を長時間煮込む。麺は細麺が合う。"),
    "budget": ("work", "The 2026 budget plan covers salaries, trade fairs and travel."),
    "fairs": ("work", "Trade fairs in Tokyo and Osaka: booth costs and travel budget."),
    "garden": ("home", "Water the monstera once a week; the basil wants daily water in summer."),
}


def payloads(doc: str, vault: str, text: str) -> list[dict[str, Any]]:
    return [{"doc_id": doc, "chunk_index": 0, "total_chunks": 1, "vault": vault, "text": text, "title": doc}]


def write(index: QdrantIndex, tok: Tokenizer, docs: dict[str, tuple[str, str]], *, sparse: bool = True) -> None:
    """Write these notes as ingestion does; without ``sparse``, as an earlier version did: no term weights."""
    index.ensure(embedding_model="m", dim=DIM, sparse=sparse_config() if sparse else None)
    batch = [payloads(d, v, t) for d, (v, t) in docs.items()]
    rng = np.random.default_rng(len(docs))
    weights = LexicalIndex(index, tok).weights(batch) if sparse else None
    items = [(pls[0]["doc_id"], pls, rng.normal(size=(1, DIM))) for pls in batch]
    index.write(items, sparse=weights)
    index.bump_version()


@pytest.fixture
def store(tmp_path: Path) -> Any:
    index = QdrantIndex(collection="rag", path=tmp_path)
    tok = Tokenizer()
    write(index, tok, TEXTS)
    yield index, tok
    index.close()


def docs(hits: list[Any]) -> list[str]:
    return [h.payload["doc_id"] for h in hits]


def test_the_engine_ranks_as_rank_bm25_does(store: Any) -> None:
    index, tok = store
    lexical = LexicalIndex(index, tok)
    assert lexical.params() is not None
    points = list(index.scroll())
    okapi = BM25Okapi([tok(search_text(dict(p.payload))) for p in points])
    for q in ("出汁の取り方", "salaries and travel", "booth costs", "monstera water", "豚骨スープ"):
        engine, _ = engine_search(lexical, [q], SearchFilters(), limit=3)
        best = points[int(np.argmax(okapi.get_scores(tok(q))))]
        assert docs(engine[0])[0] == best.payload["doc_id"], q


def test_a_scaled_query_scores_each_chunk_with_the_okapi_idf_floored_to_stay_positive(store: Any) -> None:
    index, tok = store
    write(index, tok, {"trip": ("work", "Travel to Osaka by train.")})  # "travel": in half the chunks
    lexical = LexicalIndex(index, tok)
    params = lexical.params()
    assert params is not None
    points = list(index.scroll())
    chunks = [tok(search_text(dict(p.payload))) for p in points]
    stats = TermStats.of(lexical.terms(), version=1, tokenizer=tok.signature)
    df = Counter(t for c in chunks for t in set(c))
    n_all = len(chunks)
    engine = {t: math.log(1 + (n_all - n + 0.5) / (n + 0.5)) for t, n in df.items()}
    okapi = {t: max(math.log((n_all - n + 0.5) / (n + 0.5)), 0.25 * engine[t]) for t, n in df.items()}
    assert min(okapi.values()) > 0 and okapi["travel"] == 0.25 * engine["travel"]
    for q in ("出汁の取り方", "salaries and travel", "travel", "budget travel water", "monstera water", "豚骨スープ"):
        terms = Counter(tok(q))
        hits, _ = engine_search(lexical, [q], SearchFilters(), limit=5, scale=stats.ranking_scale())
        assert hits[0], q
        for hit in hits[0]:
            chunk = chunks[[str(p.id) for p in points].index(hit.point_id)]
            stored = document_vector(chunk, params)
            weights = dict(zip(stored.indices, stored.values, strict=True))
            expected = sum(k * okapi[t] * weights[term_key(t)] for t, k in terms.items() if t in df and t in chunk)
            assert hit.score == pytest.approx(expected, rel=1e-4), (q, hit.payload["doc_id"])


def test_stored_weights_give_back_each_term_s_count_and_the_chunk_s_length() -> None:
    rng = np.random.default_rng(11)
    vocab = [f"t{i}" for i in range(40)]
    for avgdl in (3.0, 40.0, 400.0):
        params = LexicalParams(avgdl, "tok")
        for n in (1, 2, 17, 250, 2000):
            tokens = list(rng.choice(vocab, size=n))
            vec = document_vector(tokens, params)
            vec = StoredSparse(list(vec.indices), np.float32(vec.values).tolist())  # as stored
            terms, tf = read_back(vec, params)
            counts = Counter(term_key(t) for t in tokens)
            assert terms.length == n and terms.keys.tolist() == sorted(counts), (avgdl, n)
            assert tf.tolist() == [counts[k] for k in sorted(counts)], (avgdl, n)
            other = LexicalParams(avgdl * 1.37, "tok")
            assert reweighted(vec, params, other).values == pytest.approx(document_vector(tokens, other).values)


def test_filters_apply_inside_the_engine_before_the_limit(store: Any) -> None:
    index, tok = store
    lexical = LexicalIndex(index, tok)
    # "budget" matches two work notes best; in the home vault only the garden note shares "water"
    hits, _ = engine_search(lexical, ["budget travel water"], SearchFilters(vaults=["home"]), limit=1)
    assert docs(hits[0]) == ["garden"]
    assert engine_search(lexical, ["", "   "], SearchFilters(), limit=3)[0] == [[], []]


def test_an_edit_rewrites_that_document_only(store: Any) -> None:
    index, tok = store
    lexical = LexicalIndex(index, tok)
    before = {str(p.id): p.vector[SPARSE] for p in index.scroll(fields=False, vectors=[SPARSE])}
    write(index, tok, {"ramen": ("home", "Tonkotsu ramen: simmer pork bones for twelve hours.")})
    after = {str(p.id): p.vector[SPARSE] for p in index.scroll(fields=False, vectors=[SPARSE])}
    changed = {i for i in before if before[i] != after[i]}
    assert len(changed) == 1
    assert docs(engine_search(lexical, ["豚骨スープ"], SearchFilters(), limit=3)[0][0]) == []
    assert docs(engine_search(lexical, ["pork bones"], SearchFilters(), limit=1)[0][0]) == ["ramen"]


def test_a_collection_without_weights_is_refused_until_rag_migrate_weighs_it(tmp_path: Path) -> None:
    index = QdrantIndex(collection="rag", path=tmp_path)
    tok = Tokenizer()
    write(index, tok, TEXTS, sparse=False)  # as an earlier version wrote it
    lexical = LexicalIndex(index, tok)
    assert lexical.outdated() == "it keeps no BM25 term weights"
    for refused in (lexical.params, lambda: lexical.weights([payloads("tea", "home", "Matcha tea.")])):
        with pytest.raises(CollectionOutdated, match=r"earlier version.*Run `rag migrate`"):
            refused()
    assert weigh(index, tok) == len(TEXTS)  # what `rag migrate` does: the weights from the stored texts
    assert lexical.outdated() is None and lexical.params() is not None
    write(index, tok, {"tea": ("home", "Matcha tea whisked with water at 80 degrees.")})
    for q, doc in (("出汁の取り方", "miso"), ("matcha", "tea")):
        hits, _ = engine_search(lexical, [q], SearchFilters(), limit=1)
        assert docs(hits[0]) == [doc]
    index.close()


def test_weights_another_tokenizer_made_are_refused_and_made_again(store: Any) -> None:
    index, tok = store
    meta = index.metadata()[META_KEY]
    index.update_metadata(**{META_KEY: {**meta, "tokenizer": "an-earlier-tokenizer"}})
    lexical = LexicalIndex(index, tok)
    with pytest.raises(CollectionOutdated, match=r"made with tokenizer an-earlier-tokenizer.*`rag migrate`"):
        lexical.params()
    assert weigh(index, tok) == len(TEXTS)
    assert index.metadata()[META_KEY] == meta  # the same texts, the same parameters
    hits, _ = engine_search(lexical, ["出汁の取り方"], SearchFilters(), limit=1)
    assert docs(hits[0]) == ["miso"]


def test_a_new_collection_is_current_before_its_first_write(tmp_path: Path) -> None:
    index = QdrantIndex(collection="rag", path=tmp_path)
    index.ensure(embedding_model="m", dim=DIM, sparse=sparse_config())
    lexical = LexicalIndex(index, Tokenizer())
    assert lexical.outdated() is None and lexical.params() is None  # the first write fixes the parameters
    assert engine_search(lexical, ["miso"], SearchFilters(), limit=3)[0] == [[]]
    index.close()
