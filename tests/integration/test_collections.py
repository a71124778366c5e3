"""Several collections in one search: each searched as alone, merged on the probability of relevance,
each result saying its collection, paging over the merged ranking; Q&A refuses several collections
with a message that says what to do."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from components.factory import Components
from components.resilience.errors import QueryError
from graph.context import Context
from graph.rag import build_rag_graph
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import ingest_into

pytestmark = pytest.mark.integration


@pytest.fixture
def two(components: Components) -> Components:
    for vault in ("life", "research"):
        assert ingest_into(components, SAMPLE_VAULTS / vault, vault)["failures"] == []
    return components


def search(c: Components, question: str, **knobs: Any) -> dict[str, Any]:
    top_k, offset = knobs.pop("top_k", 6), knobs.pop("offset", 0)
    out: dict[str, Any] = asyncio.run(
        build_rag_graph(c).ainvoke(
            {"question": question, "mode": "search", "top_k": top_k, "offset": offset},
            context=Context(min_score=0.0, **knobs),
        )
    )
    return out


def test_results_of_both_collections_merge_on_their_score_and_say_where_they_are_from(two: Components) -> None:
    both = search(two, "BM25 k1 and the books I read", collections=("life", "research"))["results"]
    assert {r["collection"] for r in both} == {"life", "research"}
    assert [r["score"] for r in both] == sorted((r["score"] for r in both), reverse=True)
    assert [r["rank"] for r in both] == list(range(1, len(both) + 1))
    alone = {
        name: search(two, "BM25 k1 and the books I read", collection=name)["results"] for name in ("life", "research")
    }
    # each collection ranks as it does alone: the merged list is their union, best first
    pooled = sorted((r for rs in alone.values() for r in rs), key=lambda r: -r["score"])[:6]
    assert [r["chunk_id"] for r in both] == [r["chunk_id"] for r in pooled]
    page = search(two, "BM25 k1 and the books I read", collections=("life", "research"), top_k=3, offset=3)["results"]
    assert [(r["rank"], r["chunk_id"]) for r in page] == [(r["rank"], r["chunk_id"]) for r in both[3:6]]


def test_a_question_of_several_collections_is_refused_with_what_to_do(two: Components) -> None:
    with pytest.raises(QueryError, match="search mode only"):
        asyncio.run(
            build_rag_graph(two).ainvoke({"question": "BM25?"}, context=Context(collections=("life", "research")))
        )


def test_a_collection_marked_cold_yields_to_a_hot_one(two: Components, tmp_path: Any) -> None:
    from cli.ingest_cmd import IngestRequest

    report = IngestRequest((str(SAMPLE_VAULTS / "life"),), collection="life", tier="cold").here(two)
    assert report["tier"] == "cold" and two.index("life").metadata()["tier"] == "cold"
    # a margin as wide as the scale: every hot result comes before every cold one
    ranked = search(two, "BM25 k1 and the books I read", collections=("life", "research"), tier_margin=1.0, top_k=300)
    order = [r["collection"] for r in ranked["results"]]
    assert "life" in order and order == sorted(order, key=lambda name: name == "life")
