"""The fusion sweep's variants are settings of the product's own search, one Context each."""

from __future__ import annotations

from components.retrieval.fusion import DEFAULT
from evals.fusion_sweep import CONVEX_ALPHAS, RRF_KS, RRF_WEIGHTS, variants
from graph.context import Context


def test_each_variant_is_the_search_with_its_context() -> None:
    chosen = variants([50, 100])
    assert len(chosen) == 2 * (3 + len(RRF_KS) * len(RRF_WEIGHTS) + len(CONVEX_ALPHAS))
    first = chosen[0]
    assert first.label == f"default ({DEFAULT}) depth=50"
    assert first.context.fusion == Context().fusion and first.context.candidates == 50
    by_label = {v.label: v.context for v in chosen}
    assert by_label["dense only depth=100"].retrievers == ("dense",)
    assert by_label["bm25 only depth=50"].retrievers == ("bm25",)
    rrf = by_label["rrf k=30 w=1/0.7 depth=100"]
    assert (rrf.fusion, rrf.rrf_k, rrf.dense_weight, rrf.bm25_weight, rrf.candidates) == ("rrf", 30.0, 1.0, 0.7, 100)
    convex = by_label["convex dense=0.3 depth=50"]
    assert convex.fusion == "convex" and convex.dense_weight == 0.3 and abs(convex.bm25_weight - 0.7) < 1e-9
    assert all(not ctx.rerank for ctx in by_label.values())  # fusion alone is compared
