"""The fusion variants the sweep compares: each must rank documents the way its formula says."""

from __future__ import annotations

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


def test_convex_weights_move_the_winner() -> None:
    # dense alone favours a, bm25 alone favours d; the blend follows the weight
    assert convex_fusion(1.0, depth=100)(DENSE, BM25)[0] == "a"
    assert convex_fusion(0.0, depth=100)(DENSE, BM25)[0] == "d"
    assert convex_fusion(0.5, depth=100)(DENSE, BM25)[0] == "b"


def test_every_variant_is_labelled_with_its_depth() -> None:
    labels = list(variants([50, 100]))
    assert labels[:2] == ["dense only", "bm25 only"]
    assert all("depth=50" in x or "depth=100" in x for x in labels[2:])
