"""The fusion variants the sweep compares: each must rank documents the way its formula says."""

from __future__ import annotations

from components.retrieval.fusion import convex, fuse, minmax
from components.retrieval.hits import Hit
from evals.fusion_sweep import convex_fusion, rrf_fusion, variants


def hits(*pairs: tuple[str, float]) -> list[Hit]:
    return [Hit(pid, score, {"doc_id": pid.split("#")[0]}) for pid, score in pairs]


DENSE = hits(("a#0", 0.90), ("b#0", 0.85), ("c#0", 0.50))
BM25 = hits(("d#0", 12.0), ("b#0", 11.0), ("c#0", 2.0))


def test_rrf_prefers_the_chunk_both_retrievers_rank_high() -> None:
    assert rrf_fusion(60.0, 1.0, 1.0, depth=100)(DENSE, BM25)[0] == "b"


def test_rrf_depth_cuts_each_list_before_fusing() -> None:
    # at depth 1 each retriever contributes only its first chunk: a and d tie, the id breaks it
    assert rrf_fusion(60.0, 1.0, 1.0, depth=1)(DENSE, BM25) == ["a", "d"]


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
    import pytest

    assert fuse([DENSE], [BM25], method="convex")[0].point_id == "b#0"
    assert fuse([DENSE], [BM25], method="rrf")[0].point_id == "b#0"
    with pytest.raises(ValueError, match="fusion must be one of rrf, convex"):
        fuse([DENSE], [BM25], method="borda")


def test_convex_weights_move_the_winner() -> None:
    # dense alone favours a, bm25 alone favours d; the blend follows the weight
    assert convex_fusion(1.0, depth=100)(DENSE, BM25)[0] == "a"
    assert convex_fusion(0.0, depth=100)(DENSE, BM25)[0] == "d"
    assert convex_fusion(0.5, depth=100)(DENSE, BM25)[0] == "b"


def test_every_variant_is_labelled_with_its_depth() -> None:
    labels = list(variants([50, 100]))
    assert labels[:2] == ["dense only", "bm25 only"]
    assert all("depth=50" in x or "depth=100" in x for x in labels[2:])
