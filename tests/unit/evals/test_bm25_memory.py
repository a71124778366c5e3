"""The in-memory BM25 that evals.scale and evals.lexical_engine measure the store's against: rank-bm25's scores."""

import pickle

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from components.text.tokenizer import Tokenizer
from evals.bm25_memory import BM25Index, read, save


def test_postings_scores_equal_rank_bm25() -> None:
    t = Tokenizer()
    corpus = [
        "BM25 ranks documents by term frequency",
        "味噌汁の作り方と味噌の量",
        "dense retrieval with embeddings",
        "term frequency saturation k1 and b",
        "",
        "味噌 味噌 味噌",
    ]
    tokens = [t(x) for x in corpus]
    index = BM25Index([f"p{i}" for i in range(len(corpus))], [f"d{i}" for i in range(len(corpus))], tokens)
    reference = BM25Okapi([x or ["\x00"] for x in tokens])
    for q in ["term frequency", "味噌", "embeddings k1", "nothing matches"]:
        qt = t(q)
        expected = reference.get_scores(qt)
        got = index.scores(qt)
        for i, score in enumerate(expected):
            assert got.get(i, 0.0) == pytest.approx(score, abs=1e-9)
    hits = index.search(t("味噌"), limit=2)
    assert [h.point_id for h in hits] == ["p5", "p1"]
    mask = np.ones(len(corpus), dtype=bool)
    mask[5] = False
    assert index.search(t("味噌"), limit=5, allowed=mask)[0].point_id == "p1"


def test_search_breaks_ties_by_point_id_and_keeps_the_top() -> None:
    docs = [["a"], ["a"], ["a", "b"], ["a"], ["c"]]
    index = BM25Index(["p4", "p0", "p9", "p2", "p7"], ["d"] * 5, docs)
    assert [h.point_id for h in index.search(["a", "b"], limit=10)] == ["p9", "p0", "p2", "p4"]
    assert [h.point_id for h in index.search(["a"], limit=2)] == ["p0", "p2"]
    assert index.search(["zzz"], limit=3) == []


def test_a_saved_index_reads_back_and_a_damaged_or_older_file_reads_as_none(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bm25.pkl"
    save(BM25Index(["a", "b"], ["d", "d"], [["x"], ["y"]], signature="sig", version=7), path)
    assert (whole := read(path)) is not None and (whole.size, whole.version, whole.signature) == (2, 7, "sig")
    assert [h.point_id for h in whole.search(["y"])] == ["b"]
    old = BM25Index(["a"], ["d"], [["x"]], signature="sig", version=7)
    path.write_bytes(pickle.dumps({"format": 4, "index": old}))  # one pickle, as an older format wrote it
    assert read(path) is None
    path.write_bytes(b"garbage")
    assert read(path) is None
    assert read(tmp_path / "missing.pkl") is None


def test_empty_index_returns_nothing() -> None:
    assert BM25Index([], [], []).search(["x"]) == []
