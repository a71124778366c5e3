"""BM25 in the store: weights written with each chunk, searched and filtered in the engine, an edit
costing that document only, and a collection without weights given them by a backfill."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from components.retrieval.filters import SearchFilters
from components.retrieval.lexical import bm25_search, engine_search
from components.stores.bm25 import BM25Index
from components.stores.lexical import SPARSE, LexicalIndex, search_text, sparse_config
from components.stores.qdrant import QdrantIndex
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
    index.ensure(embedding_model="m", dim=DIM, sparse=sparse_config() if sparse else None)
    batch = [payloads(d, v, t) for d, (v, t) in docs.items()]
    rng = np.random.default_rng(len(docs))
    weights = LexicalIndex(index, tok).weights(batch)
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


def test_the_engine_ranks_as_the_in_memory_index_does(store: Any) -> None:
    index, tok = store
    lexical = LexicalIndex(index, tok)
    assert lexical.params() is not None
    memory = BM25Index(
        [str(p.id) for p in index.scroll()],
        [str(p.payload["doc_id"]) for p in index.scroll()],
        [tok(search_text(dict(p.payload))) for p in index.scroll()],
        payloads=[dict(p.payload) for p in index.scroll()],
    )
    for q in ("出汁の取り方", "salaries and travel", "booth costs", "monstera water", "豚骨スープ"):
        engine, _ = engine_search(lexical, [q], SearchFilters(), limit=3)
        in_memory, _ = bm25_search(memory, tok, [q], SearchFilters(), limit=3)
        assert docs(engine[0])[0] == docs(in_memory[0])[0], q


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


def test_a_collection_without_weights_is_left_to_the_in_memory_index_until_its_next_write(tmp_path: Path) -> None:
    index = QdrantIndex(collection="rag", path=tmp_path)
    tok = Tokenizer()
    write(index, tok, TEXTS, sparse=False)  # as an earlier version wrote it
    lexical = LexicalIndex(index, tok)
    assert lexical.params() is None  # retrieval stays with the in-memory index
    write(index, tok, {"tea": ("home", "Matcha tea whisked with water at 80 degrees.")})
    assert lexical.params() is not None  # the write gave every stored chunk its weights first
    for q, doc in (("出汁の取り方", "miso"), ("matcha", "tea")):
        hits, _ = engine_search(lexical, [q], SearchFilters(), limit=1)
        assert docs(hits[0]) == [doc]
    index.close()
