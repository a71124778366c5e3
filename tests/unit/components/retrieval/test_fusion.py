"""The product's fusion methods: RRF by rank and weight, convex over min-max scaled scores."""

from __future__ import annotations

import numpy as np
import pytest

from components.retrieval.fusion import convex, fuse, minmax, rrf
from components.retrieval.hits import Hit


def hits(*pairs: tuple[str, float]) -> list[Hit]:
    return [Hit(pid, score, {"doc_id": pid.split("#")[0]}) for pid, score in pairs]


DENSE = hits(("a#0", 0.90), ("b#0", 0.85), ("c#0", 0.50))
BM25 = hits(("d#0", 12.0), ("b#0", 11.0), ("c#0", 2.0))


def test_rrf_fuses_by_rank_with_weights_and_deterministic_ties() -> None:
    fused = rrf({"dense": ["a", "b", "c"], "bm25": ["c", "a"]}, k=60)
    assert [pid for pid, _ in fused] == ["a", "c", "b"]
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    only_bm25 = rrf({"dense": ["a"], "bm25": ["b"]}, weights={"dense": 0.0})
    assert [pid for pid, _ in only_bm25] == ["b"]
    assert [p for p, _ in rrf({"x": ["b"], "y": ["a"]})] == ["a", "b"]
    with pytest.raises(ValueError):
        rrf({"x": ["a"]}, k=-1)
    assert np.isfinite(fused[0][1])


def test_minmax_scales_each_list_to_zero_one() -> None:
    assert minmax([(h.point_id, h.score) for h in BM25]) == {"d#0": 1.0, "b#0": 0.9, "c#0": 0.0}
    assert minmax([("x#0", 3.0)]) == {"x#0": 1.0}
    assert minmax([]) == {}


def test_convex_scores_are_zero_to_one_and_renormalise_over_lists_that_answered() -> None:
    both = dict(convex({"dense": [("a", 0.9), ("b", 0.5)], "bm25": [("a", 7.0), ("c", 1.0)]}))
    assert both == {"a": 1.0, "b": 0.0, "c": 0.0}
    # BM25 found nothing: the dense list alone decides, still on 0..1
    assert dict(convex({"dense": [("a", 0.9), ("b", 0.5)], "bm25": []})) == {"a": 1.0, "b": 0.0}
    assert convex({"dense": [], "bm25": []}) == []


def test_the_products_fuse_offers_both_methods_and_refuses_others() -> None:
    assert fuse([DENSE], [BM25], method="convex")[0].point_id == "b#0"
    assert fuse([DENSE], [BM25], method="rrf")[0].point_id == "b#0"
    with pytest.raises(ValueError, match="fusion must be one of rrf, convex"):
        fuse([DENSE], [BM25], method="borda")


@pytest.mark.parametrize("method", ["convex", "rrf"])
def test_bm25_silence_does_not_count_against_a_chunk_in_the_other_language(method: str) -> None:
    def hit(pid: str, score: float, lang: str) -> Hit:
        return Hit(pid, score, {"language": lang})

    # a Japanese question: BM25 sees only Japanese chunks; dense ranks the English note first
    dense = [[hit("en-note", 0.86, "en"), hit("ja-a", 0.84, "ja"), hit("ja-b", 0.80, "ja")]]
    lexical = [[hit("ja-a", 12.0, "ja"), hit("ja-b", 3.0, "ja")]]
    plain = {h.point_id: h.score for h in fuse(dense, lexical, method=method)}
    aware = {h.point_id: h.score for h in fuse(dense, lexical, method=method, scripts=[frozenset({"ja"})])}
    assert plain["en-note"] < plain["ja-a"]  # without languages, BM25's silence halves the English note
    assert aware["en-note"] >= aware["ja-a"]  # as good as dense alone says: first
    assert {k: v for k, v in aware.items() if k != "en-note"} == {k: v for k, v in plain.items() if k != "en-note"}
    # a question with English words (English alone, or 「BM25 の k1」): BM25 could have matched the
    # English note, so its silence counts as before
    for words in ({"en"}, {"ja", "en"}):
        seen = {h.point_id: h.score for h in fuse(dense, lexical, method=method, scripts=[frozenset(words)])}
        assert seen["en-note"] == plain["en-note"]


@pytest.mark.parametrize("method", ["convex", "rrf"])
def test_phrasings_tied_at_the_top_are_ordered_by_how_many_agree(method: str) -> None:
    # each phrasing ranks its own chunk first (both score the top); "z" is also second for the
    # first phrasing, so it comes first whatever the ids say
    first = [hits(("a#0", 0.9), ("z#0", 0.8), ("c#0", 0.5))]
    second = [hits(("z#0", 0.9), ("d#0", 0.4))]
    fused = fuse(first + second, [[], []], method=method)
    assert [h.point_id for h in fused][:2] == ["z#0", "a#0"]
    assert fused[0].score == fused[1].score
