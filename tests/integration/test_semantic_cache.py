"""The semantic cache: persistent across processes, never shared across users, groups, filters or index versions."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from graph.context import Context
from graph.rag import build_rag_graph
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import ingest, sample_store
from tests.integration.test_cli_ask import MONSTERA, rag

pytestmark = pytest.mark.integration

PARAPHRASE = "When do I need to water my monstera?"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Components, Path]]:
    c, vaults = sample_store(tmp_path_factory.mktemp("cache"))
    yield c, vaults
    c.close()


def ask(c: Components, question: str, ctx: Context, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = asyncio.run(build_rag_graph(c).ainvoke({"question": question, **kw}, context=ctx))
    return out


def test_a_second_process_answers_from_the_cache(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE_VAULTS / "life", tmp_path / "life")
    rag(tmp_path, "ingest", str(tmp_path / "life"), "--json")
    first = json.loads(rag(tmp_path, "ask", MONSTERA, "--json").stdout)
    second = json.loads(rag(tmp_path, "ask", PARAPHRASE, "--json").stdout)
    assert first["cache_hit"] is False and first["sources"]
    assert second["cache_hit"] is True and second["answer"] == first["answer"]
    stats = json.loads(rag(tmp_path, "cache", "stats").stdout)
    assert stats["entries"] == 1 and stats["bytes"] > 0
    assert json.loads(rag(tmp_path, "cache", "clear", "--yes").stdout)["cleared"] == 1
    assert json.loads(rag(tmp_path, "ask", PARAPHRASE, "--json").stdout)["cache_hit"] is False


def test_no_hit_crosses_users_tenants_groups_or_filters(store: tuple[Components, Path]) -> None:
    c, _ = store
    c.cache.clear()
    alice = Context(user_id="alice")
    assert ask(c, MONSTERA, alice)["cache_hit"] is False
    assert ask(c, PARAPHRASE, alice)["cache_hit"] is True
    for other in (
        Context(user_id="bob"),
        Context(user_id="alice", tenant="acme"),
        Context(user_id="alice", access_groups=("finance",)),
        Context(user_id="alice", top_k=3),
    ):
        assert ask(c, PARAPHRASE, other)["cache_hit"] is False, other
    assert ask(c, PARAPHRASE, alice, filters={"tags": ["plants"]})["cache_hit"] is False
    # one tenant's users with the same groups see the same corpus: they share answers
    assert ask(c, MONSTERA, Context(user_id="carol", tenant="acme", access_groups=("hr",)))["cache_hit"] is False
    assert ask(c, PARAPHRASE, Context(user_id="dave", tenant="acme", access_groups=("hr",)))["cache_hit"] is True


def test_ingestion_makes_old_answers_unreachable(store: tuple[Components, Path]) -> None:
    c, vaults = store
    c.cache.clear()
    ctx = Context(user_id="erin")
    assert ask(c, MONSTERA, ctx)["cache_hit"] is False
    assert ask(c, PARAPHRASE, ctx)["cache_hit"] is True
    note = vaults / "life" / "Monstera Care.md"
    note.write_text(note.read_text(encoding="utf-8") + "\n\nUpdate: water less in winter.\n", encoding="utf-8")
    ingest(c, vaults)
    assert ask(c, PARAPHRASE, ctx)["cache_hit"] is False  # a new index version is a new scope


def test_the_threshold_decides_at_its_edge(store: tuple[Components, Path]) -> None:
    c, _ = store
    c.cache.clear()
    v = c.embedder.encode_queries([MONSTERA, PARAPHRASE])
    similarity = float(v[0] @ v[1])
    assert ask(c, MONSTERA, Context(user_id="f"))["cache_hit"] is False
    above = Context(user_id="f", cache_threshold=round(similarity - 0.001, 4))
    below = Context(user_id="f", cache_threshold=round(similarity + 0.001, 4))
    assert ask(c, PARAPHRASE, below)["cache_hit"] is False
    assert ask(c, PARAPHRASE, above)["cache_hit"] is True
