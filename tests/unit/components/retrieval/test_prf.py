"""Pseudo-relevance feedback: expansion terms come from the top chunks, never the question."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from components.retrieval.filters import SearchFilters
from components.retrieval.prf import expand_query
from components.stores.corpus import StoreCorpus, open_store_corpus
from components.stores.lexical import LexicalIndex, sparse_config
from components.stores.qdrant import QdrantIndex
from components.text.tokenizer import Tokenizer

DOCS = [
    ("d1", "Miso soup", "Dissolve the miso after turning off the heat; never boil the soup after adding miso paste."),
    ("d2", "Miso soup tips", "Dashi from kombu and katsuobushi makes the miso soup; tofu and wakame are classic."),
    ("d3", "Monstera", "Water the monstera only when the top soil is dry; empty the saucer."),
    ("d4", "BM25", "BM25 ranks documents by term frequency and inverse document frequency."),
    ("d5", "味噌汁", "火を止めてから味噌を溶き入れる。味噌汁は沸騰させない。だしは昆布とかつお節。"),
    ("d6", "京都", "伏見稲荷大社には朝早く着いた。千本鳥居が美しい。"),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StoreCorpus]:
    """The documents in an embedded store, as ingestion writes them (BM25's weights beside the vectors)."""
    root = tmp_path_factory.mktemp("prf")
    index = QdrantIndex(collection="rag", path=root / "qdrant")
    index.ensure(embedding_model="m", dim=4, sparse=sparse_config())
    lexical = LexicalIndex(index, Tokenizer())
    batch = [[{"doc_id": d, "chunk_index": 0, "total_chunks": 1, "title": t, "text": x}] for d, t, x in DOCS]
    vectors = np.random.default_rng(0).normal(size=(1, 4))
    index.write([(b[0]["doc_id"], b, vectors) for b in batch], sparse=lexical.weights(batch))
    yield open_store_corpus(lexical, root / "terms.npz", version=index.bump_version())
    index.close()


def test_expansion_adds_feedback_terms_and_keeps_the_question(corpus: StoreCorpus) -> None:
    tok = Tokenizer()
    ex = expand_query("How do I make miso soup?", corpus=corpus, tokenizer=tok, fb_docs=2, fb_terms=5)
    assert ex.text.startswith("How do I make miso soup?")
    assert ex.terms and len(ex.terms) <= 5
    assert not {"miso", "soup"} & set(ex.terms)  # question terms are not re-added
    assert set(ex.terms) & {"dashi", "kombu", "katsuobushi", "boil", "heat", "paste", "tofu", "wakame", "dissolve"}
    assert all(t.isalpha() for t in ex.terms)  # surface words, not stems or digits
    # the expanded query still finds the miso documents first
    top = [p["doc_id"] for p, _ in corpus.top(tok(ex.text), limit=2, where=())]
    assert set(top) == {"d1", "d2"}


def test_japanese_expansion_uses_the_index_tokens(corpus: StoreCorpus) -> None:
    tok = Tokenizer()
    ex = expand_query("味噌汁の作り方", corpus=corpus, tokenizer=tok, fb_docs=1, fb_terms=4)
    assert ex.terms and set(ex.terms) & {"昆布", "かつお節", "だし", "沸騰", "溶き入れる", "味噌"}


def test_no_feedback_means_the_question_unchanged(corpus: StoreCorpus) -> None:
    tok = Tokenizer()
    assert expand_query("quantum chromodynamics", corpus=corpus, tokenizer=tok).text == "quantum chromodynamics"
    assert expand_query("", corpus=corpus, tokenizer=tok).terms == []


def test_filters_limit_the_feedback_chunks(corpus: StoreCorpus) -> None:
    tok = Tokenizer()
    where = SearchFilters(doc_ids=["d2"]).conditions()
    ex = expand_query("miso soup", corpus=corpus, tokenizer=tok, where=where, fb_terms=10)
    assert "dissolve" not in ex.terms and "boil" not in ex.terms
