"""The ranking policy on a small dated vault: a note and its later revision with a changed value.
The newer revision wins the near-tie; Q&A with an age limit leaves the old one out, or keeps it and
says so; search shows each result's age; an answer whose context holds both says they disagree."""

from __future__ import annotations

import asyncio
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from graph.context import Context
from graph.rag import build_rag_graph
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import ingest

pytestmark = pytest.mark.integration

QUESTION = "How many grams of dry food does Miso the cat get a day?"
NOTES = {
    "Cat food 2024.md": "---\ncreated: 2024-03-01\n---\n# Cat food\n\nMiso the cat gets 80 grams of dry food "
    "a day, split into a morning and an evening meal.\n",
    "Cat food 2026.md": "---\ncreated: 2026-10-01\n---\n# Cat food (revised)\n\nMiso the cat gets 70 grams of dry "
    "food a day now, split into a morning and an evening meal, since the vet asked for less.\n",
}


#: other notes, so that fusion spreads its scores as over a real vault (two chunks alone score 1 and 0)
OTHERS = ("life/Monstera Care.md", "life/recipes/Karaage.md", "life/Running Log.md")


@pytest.fixture
def dated(components: Components, tmp_path: Path) -> Components:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, text in NOTES.items():
        (vault / name).write_text(text, encoding="utf-8")
    for note in OTHERS:
        shutil.copy(SAMPLE_VAULTS / note, vault)
    assert ingest(components, vault, sentence_vectors=True)["failures"] == []
    return components


def ask(c: Components, **context: Any) -> dict[str, Any]:
    out: dict[str, Any] = asyncio.run(
        build_rag_graph(c).ainvoke({"question": QUESTION, "debug": True}, context=Context(cache=False, **context))
    )
    return out


def search(c: Components, **context: Any) -> list[dict[str, Any]]:
    out = asyncio.run(
        build_rag_graph(c).ainvoke(
            {"question": QUESTION, "mode": "search", "group_by_document": True, "debug": True},
            context=Context(min_score=0.0, **context),
        )
    )
    return list(out["results"])


def test_the_newer_revision_wins_the_near_tie_and_search_shows_each_age(dated: Components) -> None:
    assert [d["title"] for d in search(dated, freshness_boost=0.0)][:2] == ["Cat food", "Cat food (revised)"]
    fresh = search(dated)  # on by default
    assert [d["title"] for d in fresh][:2] == ["Cat food (revised)", "Cat food"]
    ages = {d["title"]: d["chunks"][0]["age_days"] for d in fresh}
    assert ages["Cat food"] == (date.today() - date(2024, 3, 1)).days
    assert ages["Cat food (revised)"] == (date.today() - date(2026, 10, 1)).days


def test_an_age_limit_leaves_the_old_note_out_of_the_answer_or_keeps_it_with_a_warning(dated: Components) -> None:
    limited = ask(dated, max_age_days=365)
    assert {s["title"] for s in limited["sources"]} == {"Cat food (revised)"} and "70" in limited["answer"]
    assert any("older than 365 days were left out" in w and "Cat food" in w for w in limited["warnings"])
    kept = ask(dated, max_age_days=365, max_age_keeps=True)
    assert any("older than 365 days (max_age_days): Cat food" in w for w in kept["warnings"])
    unlimited = ask(dated)
    assert not any("older than" in w for w in unlimited["warnings"])


def test_notes_that_disagree_are_named_with_both_values_and_the_newer_one(dated: Components) -> None:
    out = ask(dated)
    said = [w for w in out["warnings"] if w.startswith("Sources disagree")]
    assert said == [
        "Sources disagree: 'Cat food' (2024-03-01) says 80 grams, 'Cat food (revised)' (2026-10-01) says 70 grams; "
        "the newer is 'Cat food (revised)'."
    ], out["warnings"]


def test_an_askers_verdict_moves_the_document_for_that_asker_only(dated: Components) -> None:
    from components.stores.feedback import FeedbackRecord

    revised = next(p.payload for p in dated.index().scroll() if (p.payload or {}).get("title") == "Cat food (revised)")
    dated.feedback.add(
        FeedbackRecord(
            thread_id="t1",
            verdict="bad",
            question=QUESTION,
            answer="70 grams",
            reason="outdated: the vet changed it back",
            sources=[{"n": 1, "doc_id": revised["doc_id"]}],
            collection=dated.settings.collection,
            user_id="u1",
        )
    )

    def order(user: str) -> list[str]:
        out = ask(dated, user_id=user, freshness_boost=0.1)
        moved = {m["factor"] for m in out["debug_info"].get("ranking_policy", [])}
        assert ("feedback" in moved) == (user == "u1")
        return [str(r["title"]) for r in out["results"]][:2]

    assert order("u1") == ["Cat food", "Cat food (revised)"]
    assert order("u2") == ["Cat food (revised)", "Cat food"]
