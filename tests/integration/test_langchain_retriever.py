"""LangChain access to the index: GraphRetriever over search mode, QdrantVectorStore over the collection."""

from __future__ import annotations

import asyncio
import shutil
from typing import Any

import pytest
from langchain_core.documents import Document
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from pydantic import ValidationError

from components.factory import Components
from components.resilience.errors import CollectionNotFound, IndexingError, QueryError
from components.retrieval.filters import SearchFilters
from components.settings import Settings
from components.stores.collection import DISTANCE
from components.stores.points import chunk_point_id
from components.stores.vectorstore import langchain_vectorstore
from graph.context import Context
from graph.rag import build_rag_graph
from graph.retriever import GraphRetriever
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import ingest

pytestmark = pytest.mark.integration

NOTES = ["life/Monstera Care.md", "life/recipes/味噌汁.md", "research/BM25.md", "research/Reciprocal Rank Fusion.md"]
READING_NOTES = """---
title: Hybrid Search Reading Notes
tags: [retrieval, hybrid-search]
created: 2025-03-10
status: evergreen
rating: 4
---

## Why fuse

Dense vectors miss exact identifiers such as error codes and product numbers; BM25 misses
paraphrases. Fusing the two ranked lists keeps what each one finds.
"""
WATER = "When should I water the monstera?"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Two small vaults (four sample notes and one with extra frontmatter), ingested once."""
    root = tmp_path_factory.mktemp("lc")
    for vault in ("life", "research"):
        (root / "vaults" / vault / ".obsidian").mkdir(parents=True)
    for note in NOTES:
        (root / "vaults" / note).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SAMPLE_VAULTS / note, root / "vaults" / note)
    (root / "vaults" / "research" / "Hybrid Search Reading Notes.md").write_text(READING_NOTES, encoding="utf-8")
    settings = Settings(qdrant_path=root / "qdrant", data_dir=root / "data", _env_file=None)  # type: ignore[call-arg]
    c = Components(settings)
    assert ingest(c, root / "vaults")["failures"] == []
    yield c
    c.close()


def search(c: Components, context: Context | None = None, **payload: Any) -> list[dict[str, Any]]:
    """The graph's own search-mode results, as ``rag search`` gets them."""
    out = asyncio.run(build_rag_graph(c).ainvoke({"mode": "search", **payload}, context=context or Context()))
    return list(out["results"])


def ranking(docs: list[Document]) -> list[tuple[Any, ...]]:
    return [(d.id, d.metadata["rank"], d.metadata["score"], d.page_content) for d in docs]


def graph_ranking(results: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [(r["chunk_id"], r["rank"], r["score"], r["text"]) for r in results]


# ------------------------------------------------------------------ GraphRetriever


@pytest.mark.parametrize(
    ("query", "filters"),
    [
        (WATER, {}),
        ("What does the k in RRF do?", {"vaults": ["research"]}),
        ("fusing ranked lists", {"where": [{"key": "metadata.status", "op": "eq", "value": "evergreen"}]}),
        ("味噌を入れるタイミング", {"language": "ja", "tags": ["料理"]}),
    ],
    ids=["unfiltered", "vault", "frontmatter-where", "ja-tags"],
)
def test_retriever_returns_what_search_mode_returns(store: Components, query: str, filters: dict[str, Any]) -> None:
    expected = search(store, question=query, filters=filters, top_k=4)
    docs = GraphRetriever.from_components(store, top_k=4, filters=filters).invoke(query)
    assert docs and ranking(docs) == graph_ranking(expected)
    stored = store.index().payloads([chunk_point_id(d.metadata["chunk_id"]) or "" for d in docs])
    assert len(stored) == len(docs) and all(SearchFilters.parse(filters).matches(p) for p in stored.values())


def test_filters_change_what_the_retriever_returns(store: Components) -> None:
    everywhere = GraphRetriever.from_components(store, top_k=3).invoke(WATER)
    assert everywhere[0].metadata["title"] == "Monstera Care"
    # no research note is about watering: the closest ones show only when asked for (min_score 0)
    assert GraphRetriever.from_components(store, top_k=3, filters={"vaults": ["research"]}).invoke(WATER) == []
    closest = {"min_score": 0.0}
    research = GraphRetriever.from_components(store, top_k=3, filters={"vaults": ["research"]}, context=closest).invoke(
        WATER
    )
    assert research and {d.metadata["vault"] for d in research} == {"research"}
    evergreen = GraphRetriever.from_components(
        store, filters={"where": [{"key": "metadata.status", "op": "eq", "value": "evergreen"}]}, context=closest
    ).invoke(WATER)
    assert evergreen and {d.metadata["title"] for d in evergreen} == {"Hybrid Search Reading Notes"}


def test_documents_carry_score_source_ids_rank_and_payload_metadata(store: Components) -> None:
    docs = GraphRetriever.from_components(store, top_k=5, context={"min_score": 0.0}).invoke(
        "Why fuse dense vectors and BM25? error codes"
    )
    assert [d.metadata["rank"] for d in docs] == [1, 2, 3, 4, 5]
    scores = [d.metadata["score"] for d in docs]
    assert scores == sorted(scores, reverse=True) and 0 < scores[-1] <= scores[0] <= 1
    notes = next(d for d in docs if d.metadata["title"] == "Hybrid Search Reading Notes")
    m = notes.metadata
    assert m["source"].endswith("research/Hybrid Search Reading Notes.md") and m["doc_id"] == m["source"]
    assert notes.id == m["chunk_id"] and m["chunk_id"].startswith(m["doc_id"] + "#")
    assert m["vault"] == "research" and m["tags"] == ["retrieval", "hybrid-search"] and m["created"] == "2025-03-10"
    assert m["metadata"] == {"status": "evergreen", "rating": 4}  # frontmatter beyond title/tags/dates
    assert m["section_hierarchy"] == ["Why fuse"] and set(m["ranks"]) <= {"dense", "bm25"}
    assert "text" not in m and "Dense vectors miss exact identifiers" in notes.page_content


def test_async_and_sync_in_a_running_loop_agree(store: Components) -> None:
    retriever = GraphRetriever.from_components(store, top_k=3, filters={"vaults": ["life"]})

    async def both() -> tuple[list[Document], list[Document]]:
        # a sync call from inside a running loop (a notebook, a sync tool in async code)
        return await retriever.ainvoke(WATER), retriever.invoke(WATER)

    in_async, sync_in_loop = asyncio.run(both())
    expected = graph_ranking(search(store, question=WATER, filters={"vaults": ["life"]}, top_k=3))
    assert ranking(in_async) == ranking(sync_in_loop) == expected


def test_context_overrides_reach_the_run(store: Components) -> None:
    rrf = GraphRetriever.from_components(store, top_k=4, context={"fusion": "rrf"}).invoke(WATER)
    assert ranking(rrf) == graph_ranking(search(store, Context(fusion="rrf"), question=WATER, top_k=4))
    convex = GraphRetriever.from_components(store, top_k=4).invoke(WATER)
    ranker = [d.metadata["retriever_scores"]["ranker"] for d in rrf]
    assert ranker != [d.metadata["retriever_scores"]["ranker"] for d in convex]
    high = GraphRetriever.from_components(store, context=Context(min_score=0.999)).invoke(WATER)
    assert len(high) < len(convex)
    with pytest.raises(CollectionNotFound, match="rag ingest"):
        GraphRetriever.from_components(store, collection="missing").invoke(WATER)


def test_errors_are_the_projects_own(store: Components) -> None:
    with pytest.raises(QueryError, match="Allowed keys"):
        GraphRetriever.from_components(store, filters={"folder": "research"})
    with pytest.raises(QueryError, match="created_from 2025-02-01 is after"):
        GraphRetriever.from_components(store, filters={"created_from": "2025-02-01", "created_to": "2025-01-01"})
    with pytest.raises(QueryError, match="empty"):
        GraphRetriever.from_components(store).invoke("   ")
    with pytest.raises(ValidationError, match="unknown Context fields"):
        GraphRetriever.from_components(store, context={"fuson": "rrf"})
    with pytest.raises(ValidationError, match="fusion must be one of"):
        GraphRetriever.from_components(store, context={"fusion": "borda"})
    with pytest.raises(ValidationError, match="checkpointer"):
        GraphRetriever(graph=build_rag_graph(store, checkpointer=InMemorySaver()))


def test_from_settings_builds_and_releases_its_own_components(store: Components) -> None:
    store.close()  # the embedded store admits one client at a time; the fixture's reopens on next use
    retriever = GraphRetriever.from_settings(store.settings, top_k=2)
    try:
        assert isinstance(retriever.graph, CompiledStateGraph)
        docs = retriever.invoke(WATER)
        assert docs[0].metadata["title"] == "Monstera Care" and len(docs) == 2
    finally:
        retriever.close()
    assert search(store, question=WATER, top_k=1)[0]["title"] == "Monstera Care"


# ------------------------------------------------------------------ QdrantVectorStore


def test_vectorstore_reads_our_collection(store: Components) -> None:
    vs = langchain_vectorstore(store.index(), store.embedder)
    found = vs.similarity_search_with_score(WATER, k=3)
    ours = store.index().search(store.embedder.encode_queries([WATER])[0], limit=3)
    assert [(d.metadata["_id"], pytest.approx(s, abs=1e-5)) for d, s in found] == [(str(p.id), p.score) for p in ours]
    top, _ = found[0]
    payload = store.index().payloads([top.metadata["_id"]])[top.metadata["_id"]]
    assert top.metadata["title"] == "Monstera Care" and top.page_content == payload["text"]
    without_text = {k: v for k, v in payload.items() if k != "text"}
    assert top.metadata == {**without_text, "_id": top.metadata["_id"], "_collection_name": "rag"}
    assert top.id == top.metadata["_id"]


def test_vectorstore_filters_and_frontmatter_metadata(store: Components) -> None:
    vs = langchain_vectorstore(store.index(), store.embedder)
    research = SearchFilters.parse({"vaults": ["research"]}).to_qdrant()
    docs = vs.similarity_search(WATER, k=4, filter=research)
    assert docs and {d.metadata["vault"] for d in docs} == {"research"}
    # a LangChain user writes the filter in qdrant-client's models, as langchain-qdrant documents
    from qdrant_client import models

    theirs = models.Filter(must=[models.FieldCondition(key="vault", match=models.MatchValue(value="research"))])
    assert [d.id for d in vs.similarity_search(WATER, k=4, filter=theirs)] == [d.id for d in docs]
    notes = vs.similarity_search("fusing dense and BM25 lists: error codes", k=1)[0]
    assert notes.metadata["title"] == "Hybrid Search Reading Notes"
    assert notes.metadata["metadata"] == {"status": "evergreen", "rating": 4}
    assert notes.metadata["section_hierarchy"] == ["Why fuse"] and notes.page_content.startswith("Dense vectors")


def test_plain_qdrant_vectorstore_with_the_documented_keys_reads_text_and_extras(store: Components) -> None:
    from langchain_qdrant import QdrantVectorStore

    plain = QdrantVectorStore(
        client=store.index().client,
        collection_name="rag",
        embedding=store.embedder,
        vector_name="dense",
        content_payload_key="text",
        metadata_payload_key="metadata",
        distance=DISTANCE,
    )
    notes = plain.similarity_search("fusing dense and BM25 lists: error codes", k=1)[0]
    assert notes.page_content.startswith("Dense vectors miss exact identifiers")
    extras = {k: v for k, v in notes.metadata.items() if k not in ("_id", "_collection_name")}
    assert extras == {"status": "evergreen", "rating": 4} and notes.metadata["_collection_name"] == "rag"


def test_vectorstore_is_read_only_and_checks_the_collection(store: Components) -> None:
    vs = langchain_vectorstore(store.index(), store.embedder)
    before = store.index().count()
    with pytest.raises(IndexingError, match="rag ingest"):
        vs.add_documents([Document(page_content="a note written around ingestion")])
    with pytest.raises(IndexingError, match="rag ingest"):
        asyncio.run(vs.aadd_texts(["another"]))
    assert store.index().count() == before
    with pytest.raises(CollectionNotFound, match="rag ingest"):
        langchain_vectorstore(store.index("missing"), store.embedder)
