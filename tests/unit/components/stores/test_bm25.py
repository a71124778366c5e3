import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from components.stores.bm25 import BM25Index, load, save
from components.text.tokenizer import Tokenizer


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


def test_cache_is_reused_only_for_the_same_version_and_tokenizer(tmp_path) -> None:  # type: ignore[no-untyped-def]
    index = BM25Index(["a"], ["d"], [["x"]], signature="sig", version=3)
    path = tmp_path / "bm25.pkl"
    save(index, path)
    assert load(path, version=3, signature="sig") is not None
    assert load(path, version=4, signature="sig") is None
    assert load(path, version=3, signature="other") is None
    path.write_bytes(b"garbage")
    assert load(path, version=3, signature="sig") is None


def test_status_reads_the_header_and_an_older_cache_is_rebuilt(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pickle

    from components.stores.bm25 import cache_state, load_any, read

    path = tmp_path / "bm25.pkl"
    save(BM25Index(["a", "b"], ["d", "d"], [["x"], ["y"]], signature="sig", version=7), path)
    assert cache_state(path) == {"path": str(path), "exists": True, "version": 7, "chunks": 2, "tokenizer": "sig"}
    assert load_any(path, signature="sig") is not None and load_any(path, signature="other") is None
    assert (whole := read(path)) is not None and whole.size == 2  # whatever tokenizer wrote it
    old = BM25Index(["a"], ["d"], [["x"]], signature="sig", version=7)
    path.write_bytes(pickle.dumps({"format": 4, "index": old}))  # one pickle, as version 4 wrote it
    assert load(path, version=7, signature="sig") is None and load_any(path, signature="sig") is None
    assert "older version" in cache_state(path)["error"]


def test_empty_index_returns_nothing() -> None:
    assert BM25Index([], [], []).search(["x"]) == []
