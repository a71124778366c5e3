"""Parent sections come back whole from the real store: ingest a note, fetch a section's chunks, stitch."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from components.factory import Components
from components.ingestion.chunker import stitch_parent
from components.retrieval.parents import expand_to_parents
from components.settings import Settings
from tests.integration.helpers import ingest, payloads

pytestmark = pytest.mark.integration

WATERING = "\n".join(
    [
        "Monstera likes bright, indirect light and a warm room.",
        "Water when the top three centimetres of soil are dry.",
        "Pour slowly until water runs out of the drainage holes.",
        "Empty the saucer after ten minutes so the roots never stand in water.",
        "",
        "In winter the plant rests, so water half as often.",
        "Yellow leaves usually mean too much water.",
        "Brown, crispy edges mean too little water or dry air.",
        "Rain water or filtered water is kinder than hard tap water.",
        "Check the soil with a finger before every watering.",
    ]
)
MISO = (
    "味噌汁は出汁が決め手です。昆布は水から入れて、沸騰直前に取り出します。"
    "かつお節は沸騰したら入れ、一分ほどで火を止めます。具材は火の通りにくいものから入れます。"
    "豆腐は最後に加えます。味噌は火を止めてから溶き入れます。沸騰させると香りが飛びます。"
    "赤味噌と白味噌を合わせると味に奥行きが出ます。季節の野菜を入れると彩りが良くなります。"
    "冬は根菜、夏は茄子やみょうがが合います。残った味噌汁は冷蔵庫で一日ほど持ちます。"
    "温め直すときも沸騰させないように気をつけます。"
)
NOTE = f"""---
title: Care notes
tags: [plants]
---
# Monstera

## Watering

{WATERING}

## Light

East windows are best.

# 料理

## 味噌汁

{MISO}
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Components]:
    root = tmp_path_factory.mktemp("parents")
    (root / "notes").mkdir()
    (root / "notes" / "care.md").write_text(NOTE, encoding="utf-8")
    settings = Settings(
        qdrant_path=root / "qdrant",
        data_dir=root / "data",
        chunk_size=160,
        chunk_overlap=100,
        _env_file=None,  # type: ignore[call-arg]
    )
    c = Components(settings)
    out = ingest(c, root / "notes")
    assert out["failures"] == []
    yield c
    c.close()


def parent_of(c: Components, heading: str) -> str:
    ids = {p["parent_id"] for p in payloads(c) if p["section_hierarchy"][-1:] == [heading]}
    assert len(ids) == 1, ids
    return ids.pop()


def test_a_sections_chunks_come_back_and_stitch_to_its_text(store: Components) -> None:
    index = store.index()
    watering, miso = parent_of(store, "Watering"), parent_of(store, "味噌汁")
    assert watering.endswith("#/Monstera/Watering") and miso.endswith("#/料理/味噌汁")
    chunks = index.chunks_by_parent([miso, watering, "no-such-doc#/x"])
    assert [c["parent_id"] for c in chunks] == sorted(
        (c["parent_id"] for c in chunks), key=lambda p: [miso, watering].index(p)
    )  # in the order asked for
    by_parent = {p: [c for c in chunks if c["parent_id"] == p] for p in (watering, miso)}
    assert len(by_parent[watering]) > 2 and len(by_parent[miso]) > 1  # long sections, several chunks
    assert [c["chunk_index"] for c in by_parent[watering]] == sorted(c["chunk_index"] for c in by_parent[watering])
    assert stitch_parent(by_parent[watering]) == WATERING
    assert stitch_parent(by_parent[miso]) == MISO
    assert index.chunks_by_parent([]) == []
    assert index.chunks_by_parent(["no-such-doc#/x"]) == []


def test_a_hit_expands_to_its_whole_section_through_the_store(store: Components) -> None:
    index = store.index()
    watering = parent_of(store, "Watering")
    hit = next(p for p in payloads(store) if p["parent_id"] == watering and p["chunk_index"] > 0)
    (passage,) = expand_to_parents([{**hit, "score": 0.8}], index.chunks_by_parent, budget_tokens=3000)
    assert passage.text == WATERING
    assert passage.extent == "parent"
    assert passage.section == "Monstera > Watering"
    assert passage.chunk_ids == [hit["chunk_id"]]
