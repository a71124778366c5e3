"""A store written by an earlier version (qdrant-client local mode, or an Edge store without BM25's
term weights) meets this one: the user is told to run `rag migrate`, which copies it without
embedding again and computes the weights from the stored texts, and searches answer as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from components.factory import Components
from components.resilience.errors import CollectionOutdated
from components.retrieval.filters import SearchFilters
from components.retrieval.lexical import engine_search
from components.settings import Settings
from components.stores.edge import EdgeClient, edge_root
from components.stores.lexical import LexicalIndex
from components.stores.migrate import STAGING, migrate
from components.stores.qdrant import QdrantIndex
from components.text.tokenizer import Tokenizer
from tests.integration.test_cli_ask import rag as run_rag
from tests.integration.test_cli_ingest import write_corpus

pytestmark = pytest.mark.integration


def rag(home: Path, *args: str, engine: str = "edge", code: int = 0) -> Any:
    return run_rag(home, *args, code=code, env={"QDRANT_ENGINE": engine, "RAG_SERVER": "off"})


def results(proc: Any) -> list[tuple[str, float]]:
    return [(r["chunk_id"], round(r["score"], 3)) for r in json.loads(proc.stdout)["results"]]


@pytest.fixture(scope="module")
def old_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[tuple[str, float]]]:
    """A store ingested with local mode, and what a search on it returned."""
    home = tmp_path_factory.mktemp("old")
    write_corpus(home / "corpus.jsonl", 24)
    rag(home, "ingest", str(home / "corpus.jsonl"), "--json", engine="local")
    before = results(rag(home, "search", "topic 3", "-k", "5", "--json", engine="local"))
    assert len(before) == 5
    return home, before


def test_the_old_store_is_named_then_migrated_and_searched_as_before(old_store: Any) -> None:
    home, before = old_store
    refused = rag(home, "search", "topic 3", "--json", code=1)
    assert "rag migrate" in refused.stderr + refused.stdout
    report = json.loads(rag(home, "migrate").stdout)
    copied = {c["name"]: c for c in report["collections"]}
    assert set(copied) == {"rag", "rag__sentences"}
    assert copied["rag"]["points"] >= 24 and copied["rag__sentences"]["points"] > 0
    assert not any(c["already_there"] for c in copied.values())
    assert results(rag(home, "search", "topic 3", "-k", "5", "--json")) == before
    status = json.loads(rag(home, "status", "--json").stdout)
    assert status["backend"] == "qdrant-edge" and status["exists"] is True
    again = json.loads(rag(home, "migrate").stdout)
    assert all(c["already_there"] for c in again["collections"])


def written_without_weights(store: Path, engine: str) -> None:
    """30 notes in ``store`` as an earlier version wrote them: no BM25 term weights beside the vectors."""
    old = QdrantIndex(collection="rag", path=store, engine=engine)  # type: ignore[arg-type]
    old.ensure(embedding_model="m", dim=4)
    rng = np.random.default_rng(0)
    texts = [f"note {i} about {'miso soup' if i % 3 == 0 else 'trade fairs'}" for i in range(30)]
    old.write(
        [
            (f"d{i}", [{"doc_id": f"d{i}", "chunk_index": 0, "total_chunks": 1, "text": t}], rng.normal(size=(1, 4)))
            for i, t in enumerate(texts)
        ]
    )
    old.close()


def miso_notes(store: Path) -> set[str]:
    """The notes the store's BM25 finds for "miso soup"."""
    index = QdrantIndex(collection="rag", path=store)
    try:
        hits, _ = engine_search(LexicalIndex(index, Tokenizer()), ["miso soup"], SearchFilters(), limit=10)
        return {h.payload["doc_id"] for h in hits[0]}
    finally:
        index.close()


def test_an_interrupted_migration_leaves_no_half_collection_and_the_next_run_completes(tmp_path: Path) -> None:
    """A store as an earlier version wrote it (no BM25 weights in it): copied, then given its weights."""
    store = tmp_path / "qdrant"
    written_without_weights(store, "local")

    def stop(name: str, done: int, total: int) -> None:
        if done:
            raise KeyboardInterrupt  # the user pressed Ctrl-C after the first batch was written

    with pytest.raises(KeyboardInterrupt):
        migrate(store, progress=stop)
    client = EdgeClient(edge_root(store))
    assert not client.collection_exists("rag") and client.collection_exists("rag" + STAGING)
    client.close()
    (copied,) = migrate(store)
    assert (copied.collection, copied.points, copied.skipped, copied.weighted) == ("rag", 30, False, 30)
    assert sorted(p.stem for p in edge_root(store).glob("*.json")) == ["rag"]
    index = QdrantIndex(collection="rag", path=store)
    assert LexicalIndex(index, Tokenizer()).params() is not None  # the collection keeps BM25's weights in the store
    index.close()
    assert miso_notes(store) == {f"d{i}" for i in range(0, 30, 3)}


def test_an_edge_collection_without_weights_is_named_then_weighed_where_it_is(tmp_path: Path) -> None:
    """An Edge store from before BM25 moved into it: queries and writes name `rag migrate`, which
    computes the weights from the stored texts in place; a second run finds nothing to do."""
    store = tmp_path / "qdrant"
    written_without_weights(store, "edge")
    c = Components(Settings(qdrant_path=store, data_dir=tmp_path / "data", _env_file=None))  # type: ignore[call-arg]
    try:
        for read in (c.corpus, c.lexical):
            with pytest.raises(CollectionOutdated, match=r"keeps no BM25 term weights\. Run `rag migrate`"):
                read()
    finally:
        c.close()
    (weighed,) = migrate(store)
    assert (weighed.collection, weighed.points, weighed.skipped, weighed.weighted) == ("rag", 30, True, 30)
    assert miso_notes(store) == {f"d{i}" for i in range(0, 30, 3)}
    assert migrate(store) == []
