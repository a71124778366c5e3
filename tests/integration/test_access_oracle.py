"""No oracle in what a search says about itself: a caller without a note's groups learns nothing of
it from "no results" explanations, did-you-mean suggestions, facet counts or the values query
analysis trusts. Each test asks, as an attacker would, once with a guess that occurs only in the
restricted note and once with one that occurs nowhere, and compares what comes back; the same
question from a member of the group shows the test could tell the difference."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from components.settings import Settings
from graph.context import Context
from graph.rag import build_rag_graph
from tests.integration.helpers import ingest
from tests.integration.test_cli_ask import rag

pytestmark = pytest.mark.integration

CODE = "7731-QX"
"""The restricted note's access code: what the attacker tries to recover."""
NOWHERE = "5590-KV"
"""A guess of the same shape that no note holds."""


def write_notes(root: Path) -> Path:
    notes = root / "notes"
    notes.mkdir()
    (notes / "Door codes.md").write_text(
        f"---\naccess: [hr]\ntags: [payroll]\n---\n# Server room access\n\nThe server room code is {CODE}.\n",
        encoding="utf-8",
    )
    (notes / "Holidays.md").write_text(
        "---\ntags: [holidays]\n---\n# Company holidays\n\nThe office is closed from 29 December to 3 January.\n",
        encoding="utf-8",
    )
    return notes


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Components]:
    root = tmp_path_factory.mktemp("oracle")
    c = Components(Settings(qdrant_path=root / "qdrant", data_dir=root / "data", _env_file=None))  # type: ignore[call-arg]
    assert ingest(c, write_notes(root))["failures"] == []
    yield c
    c.close()


def search(c: Components, filters: dict[str, Any], groups: tuple[str, ...] = ()) -> dict[str, Any]:
    ctx = Context(access_groups=groups, cache=False, min_score=0.0)
    payload = {"mode": "search", "question": "office", "filters": filters}
    out: dict[str, Any] = asyncio.run(build_rag_graph(c).ainvoke(payload, context=ctx))
    return out


def told(out: dict[str, Any], guess: str) -> list[str]:
    """What the caller is told, with its own guess taken out (the label repeats it)."""
    return [w.replace(guess, "GUESS") for w in out["warnings"]]


@pytest.mark.parametrize(
    ("filters_for", "guess", "nowhere"),
    [
        (lambda g: {"where": [{"key": "text", "op": "contains", "value": g}]}, CODE, NOWHERE),
        (lambda g: {"where": [{"key": "title", "op": "eq", "value": g}]}, "Server room access", "Server room keys"),
        (lambda g: {"tags": [g]}, "payrol", "payrocket"),  # one letter from a restricted tag
    ],
    ids=["text-contains", "title-exact", "tag-typo"],
)
def test_a_guess_only_a_restricted_note_holds_is_told_as_one_nobody_holds(
    store: Components, filters_for: Any, guess: str, nowhere: str
) -> None:
    hidden, absent = search(store, filters_for(guess)), search(store, filters_for(nowhere))
    assert hidden["results"] == absent["results"] == []
    assert told(hidden, guess) == told(absent, nowhere)
    assert not any("did you mean" in w for w in hidden["warnings"]), hidden["warnings"]
    # a member of the group tells them apart: the guess finds the note, or the suggestion names it
    member = search(store, filters_for(guess), ("hr",))
    assert member["results"] or any("did you mean" in w for w in member["warnings"]), member["warnings"]


def test_suggestions_and_analysis_list_only_the_values_a_caller_may_see(store: Components) -> None:
    out = search(store, {"tags": ["holiday"]})
    assert any("did you mean 'holidays'" in w for w in out["warnings"]), out["warnings"]
    assert "payroll" not in store.known_values(None, ())[1]
    assert "payroll" in store.known_values(None, ("hr",))[1]


def test_a_caller_who_may_see_nothing_is_told_the_collection_is_empty(tmp_path: Path) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "Only.md").write_text("---\naccess: [hr]\n---\n# Only\n\nRestricted words.\n", encoding="utf-8")
    c = Components(Settings(qdrant_path=tmp_path / "qdrant", data_dir=tmp_path / "data", _env_file=None))  # type: ignore[call-arg]
    try:
        assert ingest(c, notes)["failures"] == []
        out = search(c, {"where": [{"key": "text", "op": "contains", "value": "Restricted"}]})
        assert out["results"] == [] and any("the collection is empty" in w for w in out["warnings"])
    finally:
        c.close()


def test_status_facets_count_only_the_notes_a_caller_may_see(tmp_path: Path) -> None:
    rag(tmp_path, "ingest", str(write_notes(tmp_path)), "--json")
    public = json.loads(rag(tmp_path, "status", "--facets", "--json").stdout)["facets"]
    member = json.loads(rag(tmp_path, "status", "--facets", "--group", "hr", "--json").stdout)["facets"]
    assert public["tags"] == {"holidays": 1}
    assert member["tags"] == {"holidays": 1, "payroll": 1}
