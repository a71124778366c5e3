"""The semantic cache: persistent across processes, never shared across users, groups, filters or index versions."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from components.factory import Components
from graph.context import Context
from graph.rag import build_rag_graph
from tests.conftest import SAMPLE_VAULTS
from tests.fakes.scripted_llm import ScriptedChatModel
from tests.integration.helpers import ingest, sample_store, with_models
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
    second = json.loads(rag(tmp_path, "ask", PARAPHRASE, "--json", process=True).stdout)
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


# ---------------------------------------------------------------- follow-ups
WINTER = "How often should I water the monstera in winter?"
FOLLOW_UPS = {"And in winter?": WINTER, "What about the cold months?": WINTER}


def resolve(messages: list[BaseMessage]) -> dict[str, str]:
    """A rewriter that knows what the follow-ups of these tests stand for (other questions stay)."""
    last = str(next(m for m in reversed(messages) if isinstance(m, HumanMessage)).content)
    return {"question": FOLLOW_UPS.get(last, last), "hypothetical_answer": ""}


def steps(out: dict[str, Any]) -> list[str]:
    return [s["node"] for s in out.get("steps") or []]


def test_follow_ups_are_cached_on_their_standalone_rewrite(store: tuple[Components, Path]) -> None:
    base, _ = store
    base.cache.clear()
    rw = ScriptedChatModel(resolve)
    c = with_models(base, rewriter=rw)
    g = build_rag_graph(c, checkpointer=InMemorySaver())
    ctx = Context(user_id="gil")

    def say(thread: str, text: str) -> dict[str, Any]:
        cfg: Any = {"configurable": {"thread_id": thread}}
        out: dict[str, Any] = asyncio.run(g.ainvoke({"question": text, "debug": True}, config=cfg, context=ctx))
        return out

    assert say("a", MONSTERA)["cache_hit"] is False
    calls = len(rw.calls)
    follow = say("a", "And in winter?")
    assert follow["cache_hit"] is False and follow["sources"]
    assert "condense_question" in steps(follow) and follow["debug_info"]["condensed"] is True
    assert len(rw.calls) == calls + 1  # rewrite_query reused the rewrite condense_question made

    # the standalone question, asked first in another thread, is the same question
    fresh = say("b", WINTER)
    assert fresh["cache_hit"] is True and fresh["answer"] == follow["answer"]
    # another thread's follow-up that stands for the same question hits too
    assert say("c", MONSTERA)["cache_hit"] is True
    other = say("c", "What about the cold months?")
    assert other["cache_hit"] is True and other["answer"] == follow["answer"]
    assert any(WINTER in w for w in other["warnings"])  # keyed on the rewrite, not the raw words
    # the raw follow-up means nothing outside its thread: as a first question it is not that entry
    assert say("d", "And in winter?")["cache_hit"] is False


def test_follow_ups_without_a_standalone_rewrite_are_not_cached(store: tuple[Components, Path]) -> None:
    c, _ = store
    c.cache.clear()
    g = build_rag_graph(c, checkpointer=InMemorySaver())
    cfg: Any = {"configurable": {"thread_id": "no-llm"}}
    ctx = Context(user_id="hal")
    asyncio.run(g.ainvoke({"question": MONSTERA}, config=cfg, context=ctx))
    before = c.cache.stats().size
    follow = asyncio.run(g.ainvoke({"question": "And in winter?"}, config=cfg, context=ctx))
    assert follow["cache_hit"] is False and follow["answer"]
    assert c.cache.stats().size == before  # no LLM, no standalone question: nothing to key it on
