"""The Edge store answers QdrantIndex's calls as local mode does: same writes, same filters, same
reads; one process per folder; an interrupted creation or rename never looks like a whole collection."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from components.retrieval.filters import FieldFilter, SearchFilters
from components.stores.edge import EdgeClient, StoreBusy, edge_root
from components.stores.edge_models import VectorSpec
from components.stores.qdrant import QdrantIndex

DIM = 8


def payload(doc: str, i: int, total: int, **extra: Any) -> dict[str, Any]:
    return {
        "doc_id": doc,
        "chunk_id": f"{doc}#{i}",
        "chunk_index": i,
        "total_chunks": total,
        "content_hash": f"h-{doc}",
        "origin": doc,
        "text": f"chunk {i} of {doc}",
        "parent_id": f"{doc}/p{i // 2}",
        **extra,
    }


def vectors(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, DIM)).astype(np.float32)


DOCS: list[tuple[str, list[dict[str, Any]]]] = [
    (
        "a",
        [
            payload(
                "a",
                i,
                3,
                vault="work",
                tags=["x", "y"] if i else ["x"],
                language="en",
                created_ts=1_700_000_000.0 + i,
                source=f"/notes/work/a{i}.md",
                source_prefixes=["/notes", "/notes/work"],
                section_hierarchy=["Intro"],
                metadata={"author": "Sato", "year": 2020 + i, "published": f"202{i}-05-01T00:00:00+00:00"},
            )
            for i in range(3)
        ],
    ),
    (
        "b",
        [
            payload(
                "b",
                i,
                2,
                vault="home",
                tags=[],
                language="ja",
                created_ts=None,
                source=f"/notes/home/b{i}.md",
                source_prefixes=["/notes", "/notes/home"],
                section_hierarchy=["日記"],
                access=["family"] if i else None,
                metadata={"author": "鈴木", "year": 2024},
            )
            for i in range(2)
        ],
    ),
]


def filled(path: Path, engine: str) -> QdrantIndex:
    index = QdrantIndex(collection="rag", path=path, engine=engine)  # type: ignore[arg-type]
    index.ensure(embedding_model="m", dim=DIM)
    index.write([(doc, pls, vectors(len(pls), seed=len(doc) + ord(doc))) for doc, pls in DOCS])
    index.bump_version()
    index.optimize()
    return index


@pytest.fixture
def both(tmp_path: Path) -> Any:
    edge, local = filled(tmp_path / "e", "edge"), filled(tmp_path / "l", "local")
    yield edge, local
    edge.close()
    local.close()


FILTERS = [
    {"vaults": ["work"]},
    {"vaults": ["work", "home"], "tags": ["y"]},
    {"created_from": date(2023, 11, 14), "created_to": date(2023, 11, 14)},
    {"source_prefix": "/notes/home"},
    {"section": "日記"},
    {"language": "ja"},
    {"doc_ids": ["b"]},
    {"where": [FieldFilter(key="metadata.author", op="eq", value="Sato")]},
    {"where": [FieldFilter(key="metadata.year", op="in", value=[2021, 2024])]},
    {"where": [FieldFilter(key="metadata.author", op="contains", value="鈴")]},
    {"where": [FieldFilter(key="metadata.year", op="range", gte=2021)]},
    {"where": [FieldFilter(key="metadata.published", op="range", gte="2021-01-01")]},
]


@pytest.mark.parametrize("raw", FILTERS, ids=[str(sorted(f)) for f in FILTERS])
def test_a_filter_admits_the_same_points_in_edge_and_local_mode(both: Any, raw: dict[str, Any]) -> None:
    edge, local = both
    flt = SearchFilters(**raw).to_qdrant()
    got = {str(p.id) for p in edge.scroll(fields=False, scroll_filter=flt)}
    assert got, "a filter that admits nothing would prove nothing"
    assert got == {str(p.id) for p in local.scroll(fields=False, scroll_filter=flt)}
    # and as a search filter, with the same order of the same scores
    q = vectors(1, seed=99)[0]
    e = [(str(p.id), round(p.score, 4)) for p in edge.search(q, limit=10, query_filter=flt)]
    assert e == [(str(p.id), round(p.score, 4)) for p in local.search(q, limit=10, query_filter=flt)]


def test_access_groups_hide_what_is_not_shared(both: Any) -> None:
    edge, local = both
    for groups, expected in (((), 4), (("family",), 5)):
        flt = SearchFilters().within(groups).to_qdrant()
        assert sum(1 for _ in edge.scroll(fields=False, scroll_filter=flt)) == expected
        assert sum(1 for _ in local.scroll(fields=False, scroll_filter=flt)) == expected


def test_rewriting_a_shorter_document_drops_its_leftovers_and_keeps_the_rest(both: Any) -> None:
    for index in both:
        index.write([("a", [payload("a", 0, 1, vault="work")], vectors(1, seed=5))])
        states = index.doc_states()
        assert (states["a"].points, states["a"].total, states["b"].points) == (1, 1, 2)
        assert set(index.doc_states(["b", "nowhere"])) == {"b"} and index.doc_states([]) == {}
        assert index.count() == 3
        assert [p["chunk_index"] for p in index.chunks_by_parent(["a/p0", "b/p0"])] == [0, 0, 1]


def test_reads_return_what_was_written(both: Any) -> None:
    edge, local = both
    ids = [str(p.id) for p in local.scroll(fields=False)]
    assert sorted(ids) == sorted(str(p.id) for p in edge.scroll(fields=False))
    assert edge.payloads(ids) == local.payloads(ids)
    ev, lv = edge.vectors(ids), local.vectors(ids)
    assert all(np.allclose(ev[i], lv[i], atol=1e-6) for i in ids)
    assert edge.metadata()["version"] == local.metadata()["version"] == 1
    edge.delete_documents(["b"])
    assert edge.count() == 3 and "b" not in edge.doc_states()


def test_a_second_process_is_refused_and_the_folder_frees_on_close(tmp_path: Path) -> None:
    first = EdgeClient(edge_root(tmp_path))
    with pytest.raises(StoreBusy):
        EdgeClient(edge_root(tmp_path))
    first.close()
    EdgeClient(edge_root(tmp_path)).close()


def test_the_store_survives_a_reopen(tmp_path: Path) -> None:
    index = filled(tmp_path, "edge")
    ids = [str(p.id) for p in index.scroll(fields=False)]
    index.close()
    again = QdrantIndex(collection="rag", path=tmp_path, engine="edge")
    assert sorted(str(p.id) for p in again.scroll(fields=False)) == sorted(ids)
    assert again.metadata()["embedding_model"] == "m"
    again.close()


def test_a_half_created_or_half_renamed_collection_is_not_taken_for_a_whole_one(tmp_path: Path) -> None:
    client = EdgeClient(edge_root(tmp_path))
    spec = {"dense": VectorSpec(size=DIM, distance="Dot")}
    client.create_collection("rag", vectors_config=spec, metadata={"version": 3})
    (edge_root(tmp_path) / "rag.json").unlink()  # as if the process died before writing the metadata
    assert not client.collection_exists("rag")
    client._shards.clear()
    client.create_collection("rag", vectors_config=spec, metadata={"version": 0})  # replaces the leftover
    assert client.count("rag").count == 0
    client.rename_collection("rag", "final")
    assert client.collection_exists("final") and not client.collection_exists("rag")
    assert client.get_collection("final").config.metadata == {"version": 0}
    with pytest.raises(ValueError, match="already exists"):
        client.create_collection("other", vectors_config=spec)
        client.rename_collection("other", "final")
    client.close()


def test_every_filtered_field_is_indexed_and_an_older_collection_gets_the_missing_indexes(tmp_path: Path) -> None:
    from components.stores.points import INDEXED

    client = EdgeClient(edge_root(tmp_path))
    spec = {"dense": VectorSpec(size=DIM, distance="Dot")}
    client.create_collection("rag", vectors_config=spec, metadata={"embedding_model": "m", "dim": DIM, "version": 0})
    client.create_payload_index("rag", "doc_id", field_schema="keyword")  # as an earlier version left it
    index = QdrantIndex(collection="rag", path=tmp_path, client=client)
    index.ensure(embedding_model="m", dim=DIM)
    schema = client.get_collection("rag").payload_schema
    assert set(schema) == set(INDEXED)
    assert schema["chunk_index"].data_type == "integer"
    filtered = {c.qdrant.key for c in SearchFilters(**{k: v for f in FILTERS[:7] for k, v in f.items()}).conditions()}
    assert filtered <= set(INDEXED)
    client.close()
