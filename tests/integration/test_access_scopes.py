"""Access scopes: a chunk shared with some groups is never searched, used or shown outside them."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from components.resilience.errors import QueryError, RAGError, UnknownDocument
from components.settings import Settings
from graph.context import Context
from graph.rag import build_rag_graph
from tests.fakes.scripted_llm import ScriptedChatModel
from tests.integration.helpers import ingest, payloads, with_models
from tests.integration.test_cli_ask import rag
from tests.integration.test_qa_graph import grader

pytestmark = pytest.mark.integration

SALARY = "The 2026 salary bands for engineers range from 9 to 14 million yen."
BUDGET = "The marketing budget for 2026 is 40 million yen, mostly for trade fairs."


def write_corpus(root: Path, *, salary_access: str = "[hr]") -> Path:
    notes = root / "notes"
    notes.mkdir(exist_ok=True)
    (notes / "Salary bands.md").write_text(
        f"---\naccess: {salary_access}\n---\n# Salary bands 2026\n\n{SALARY}\n", encoding="utf-8"
    )
    (notes / "Holidays.md").write_text(
        "# Company holidays 2026\n\nThe office is closed from 29 December to 3 January.\n", encoding="utf-8"
    )
    lines = [
        {"_id": "budget-2026", "title": "Budget 2026", "text": BUDGET, "metadata": {"access": ["finance", "board"]}},
        {"_id": "fairs", "title": "Trade fairs", "text": "We exhibit at two trade fairs in 2026.", "metadata": {}},
    ]
    (notes / "docs.jsonl").write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return notes


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Components, Path]]:
    root = tmp_path_factory.mktemp("access")
    notes = write_corpus(root)
    c = Components(Settings(qdrant_path=root / "qdrant", data_dir=root / "data", _env_file=None))  # type: ignore[call-arg]
    assert ingest(c, notes)["failures"] == []
    yield c, notes
    c.close()


def run(c: Components, payload: dict[str, Any], groups: tuple[str, ...] = ()) -> dict[str, Any]:
    # min_score 0: these searches list every chunk a caller may see, relevant or not
    ctx = Context(access_groups=groups, cache=False, min_score=0.0)
    out: dict[str, Any] = asyncio.run(build_rag_graph(c).ainvoke(payload, context=ctx))
    return out


def titles(out: dict[str, Any]) -> set[str]:
    return {r["title"] for r in out["results"]}


def test_access_comes_from_frontmatter_and_jsonl_metadata(store: tuple[Components, Path]) -> None:
    c, _ = store
    access = {p["title"]: p.get("access") for p in payloads(c)}
    assert access["Salary bands 2026"] == ["hr"] and access["Budget 2026"] == ["board", "finance"]
    assert access["Company holidays 2026"] == [] and access["Trade fairs"] == []
    assert all("access" not in (p.get("metadata") or {}) for p in payloads(c))


@pytest.mark.parametrize(
    ("groups", "visible"),
    [
        ((), {"Company holidays 2026", "Trade fairs"}),
        (("hr",), {"Company holidays 2026", "Trade fairs", "Salary bands 2026"}),
        (("finance", "sales"), {"Company holidays 2026", "Trade fairs", "Budget 2026"}),
    ],
)
def test_search_returns_public_chunks_and_those_shared_with_the_callers_groups(
    store: tuple[Components, Path], groups: tuple[str, ...], visible: set[str]
) -> None:
    c, _ = store
    out = run(c, {"mode": "search", "question": "2026 salary budget holidays trade fairs", "top_k": 10}, groups)
    assert titles(out) == visible


def test_qa_never_shows_a_model_a_chunk_outside_the_groups(store: tuple[Components, Path]) -> None:
    c, _ = store
    generator = ScriptedChatModel(["I could not find the salary bands [1]."])
    judge = ScriptedChatModel(grader())
    out = run(
        with_models(c, generator=generator, grader=judge), {"question": "What are the salary bands for engineers?"}
    )
    seen = "\n".join(str(m.content) for model in (generator, judge) for call in model.calls for m in call)
    assert "14 million" not in seen and "Salary bands" not in seen
    assert all(s["title"] != "Salary bands 2026" for s in out.get("sources") or [])
    extractive = run(c, {"question": "What are the salary bands for engineers?"}, ("hr",))
    assert "9 to 14 million yen" in extractive["answer"]


def test_the_question_or_filters_cannot_widen_access(store: tuple[Components, Path]) -> None:
    c, _ = store
    with pytest.raises(QueryError, match="access"):
        run(c, {"mode": "search", "question": "salary", "filters": {"where": [{"key": "access", "value": "hr"}]}})
    with pytest.raises(QueryError, match="Allowed keys"):
        run(c, {"mode": "search", "question": "salary", "filters": {"access_groups": ["hr"]}})
    out = run(c, {"mode": "search", "question": "access: hr salary bands, I am in group hr", "top_k": 10})
    assert "Salary bands 2026" not in titles(out)


def test_similar_to_a_hidden_document_is_not_in_the_index(store: tuple[Components, Path]) -> None:
    c, notes = store
    hidden = str(notes / "Salary bands.md")

    def refusal(doc_id: str) -> str:
        with pytest.raises(RAGError) as e:
            run(c, {"mode": "search", "similar_to": doc_id, "top_k": 3})
        return f"{type(e.value).__name__}: {e.value}".replace(doc_id, "ID")

    # the same answer as for a document that does not exist: its existence does not leak
    assert refusal(hidden) == refusal(str(notes / "No such note.md"))
    assert refusal(hidden).startswith("UnknownDocument: No document with id 'ID'")
    # rag show reads with the same rule
    from cli.show_cmd import document

    with pytest.raises(UnknownDocument):
        document(c, hidden, None)
    assert document(c, hidden, None, ("hr",))["title"] == "Salary bands 2026"
    assert run(c, {"mode": "search", "similar_to": hidden, "top_k": 3}, ("hr",))["results"]


def test_reingesting_with_new_access_changes_who_sees_it(tmp_path: Path) -> None:
    notes = write_corpus(tmp_path)
    c = Components(Settings(qdrant_path=tmp_path / "qdrant", data_dir=tmp_path / "data", _env_file=None))  # type: ignore[call-arg]
    try:
        ingest(c, notes)
        query = {"mode": "search", "question": "salary bands engineers", "top_k": 10}
        assert "Salary bands 2026" not in titles(run(c, query))
        write_corpus(tmp_path, salary_access="[]")
        assert ingest(c, notes)["failures"] == []
        assert "Salary bands 2026" in titles(run(c, query))
    finally:
        c.close()


def test_the_cli_caller_passes_its_groups(tmp_path: Path) -> None:
    notes = write_corpus(tmp_path)
    rag(tmp_path, "ingest", str(notes), "--json")
    plain = json.loads(rag(tmp_path, "search", "salary bands", "-k", "10", "--json").stdout)
    hr = json.loads(rag(tmp_path, "search", "salary bands", "-k", "10", "--group", "hr", "--json").stdout)
    assert "Salary bands 2026" not in {r["title"] for r in plain["results"]}
    assert "Salary bands 2026" in {r["title"] for r in hr["results"]}
