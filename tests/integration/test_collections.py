"""Several collections in one search or question: each searched as alone, merged on the probability of
relevance, each result saying its collection, paging over the merged ranking; a question answered from
whichever collection holds the answer, its conditions read against every collection's tags, its
cached answers kept apart from one collection's, and a collection's restricted notes kept from callers
outside their groups as they are when it is read alone."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from components.factory import Components
from components.settings import Settings
from graph.context import Context
from graph.rag import build_rag_graph
from nodes.rag.check_cache import cache_scope
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import ingest_into
from tests.integration.test_access_scopes import write_corpus

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


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Components]:
    """The sample vaults as two collections, and a small company corpus with restricted notes as a
    third (``hr``), on one store the module's questions share."""
    root = tmp_path_factory.mktemp("collections")
    c = Components(Settings(qdrant_path=root / "qdrant", data_dir=root / "data", _env_file=None))  # type: ignore[call-arg]
    for name, path in (("life", SAMPLE_VAULTS / "life"), ("research", SAMPLE_VAULTS / "research")):
        assert ingest_into(c, path, name)["failures"] == []
    assert ingest_into(c, write_corpus(root), "hr")["failures"] == []
    yield c
    c.close()


def ask(c: Components, question: str, collections: tuple[str, ...], groups: tuple[str, ...] = ()) -> dict[str, Any]:
    ctx = Context(collections=collections, access_groups=groups, cache=False)
    out: dict[str, Any] = asyncio.run(build_rag_graph(c).ainvoke({"question": question}, context=ctx))
    return out


@pytest.mark.parametrize(
    ("question", "expected", "document", "home"),
    [
        ("味噌汁で味噌を入れるタイミングは？", "火を止めてから", "life/recipes/味噌汁.md", "life"),
        ("fugashi とは何ですか？", "MeCab", "research/日本語トークナイズ.md", "research"),
    ],
)
def test_a_question_of_two_collections_is_answered_from_the_one_that_holds_the_answer(
    pair: Components, question: str, expected: str, document: str, home: str
) -> None:
    out = ask(pair, question, ("life", "research"))
    assert out["route"] == "vector_search" and out["path"] == "extractive"
    assert expected in out["answer"]
    assert any(str(s["doc_id"]).endswith(document) for s in out["sources"])
    # the evidence says where each passage is kept; the answer's own comes from its collection
    assert {r["collection"] for r in out["results"]} <= {"life", "research"}
    assert out["results"][0]["collection"] == home


def test_conditions_are_read_against_the_tags_of_every_collection(pair: Components) -> None:
    # 料理 is a tag of the life vault only, rag of the research vault only: both listings need both
    cooking = ask(pair, "2025年に書いた #料理 のメモは？", ("research", "life"))
    assert cooking["route"] == "metadata_search" and "Karaage" in cooking["answer"]
    rag = ask(pair, "Which notes are tagged rag?", ("life", "research"))
    assert rag["route"] == "metadata_search"
    assert "Retrieval-Augmented Generation" in rag["answer"] and "Karaage" not in rag["answer"]


def test_an_answer_of_two_collections_is_cached_apart_from_one_collection_and_with_both_versions(
    pair: Components,
) -> None:
    state: Any = {"collection": "life", "search_filters": {}, "mode": "qa", "language": "en", "top_k": 5}
    alone = cache_scope(pair, {**state, "collections": ["life"]}, Context())
    both = cache_scope(pair, {**state, "collections": ["life", "research"]}, Context())
    assert alone != both and alone == cache_scope(pair, state, Context())
    versions = {n: pair.index(n).metadata().get("version", 0) for n in ("life", "research")}
    assert f"life|v{versions['life']}" in both and f"research|v{versions['research']}" in both


def test_restricted_notes_of_one_collection_stay_out_of_a_question_of_several(pair: Components) -> None:
    outside = ask(pair, "What are the salary bands for engineers?", ("life", "hr"))
    seen = json.dumps(outside, ensure_ascii=False, default=str)
    assert "9 to 14 million" not in seen and "Salary bands" not in seen
    member = ask(pair, "What are the salary bands for engineers?", ("life", "hr"), groups=("hr",))
    assert "9 to 14 million" in member["answer"]
    assert any(r.get("collection") == "hr" for r in member["results"])
    # a listing reads every collection at once: the access condition holds there too, though the
    # first collection named has no restricted note
    listed = ask(pair, "Which notes are in the notes vault?", ("life", "hr"))
    assert listed["route"] == "metadata_search"
    assert "Company holidays 2026" in listed["answer"] and "Salary bands" not in listed["answer"]
    shared = ask(pair, "Which notes are in the notes vault?", ("life", "hr"), groups=("hr",))
    assert "Salary bands 2026" in shared["answer"]


def test_a_collection_marked_cold_yields_to_a_hot_one(two: Components, tmp_path: Any) -> None:
    from cli.ingest_cmd import IngestRequest

    report = IngestRequest((str(SAMPLE_VAULTS / "life"),), collection="life", tier="cold").here(two)
    assert report["tier"] == "cold" and two.index("life").metadata()["tier"] == "cold"
    # a margin as wide as the scale: every hot result comes before every cold one
    ranked = search(two, "BM25 k1 and the books I read", collections=("life", "research"), tier_margin=1.0, top_k=300)
    order = [r["collection"] for r in ranked["results"]]
    assert "life" in order and order == sorted(order, key=lambda name: name == "life")
