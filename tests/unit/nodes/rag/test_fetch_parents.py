"""Parent documents: the sections around the relevant chunks become the numbered passages generation
cites; a section holding instructions aimed at the assistant is withheld with a warning."""

from __future__ import annotations

from components.factory import Components
from components.text import messages
from nodes.rag import fetch_parents
from tests.unit.nodes.helpers import MONSTERA, chunks, results, run


def test_the_relevant_chunks_sections_become_the_passages_numbered_from_one(notes: Components) -> None:
    miso, watering, light = chunks(notes, "味噌汁")[4], *chunks(notes, "Monstera Care")[1:3]
    verdict = {"relevant": True, "score": 0.8, "reason": "", "path": "calibrated", "ranks": [2, 3]}
    out = run(
        fetch_parents.make(notes),
        {"question": MONSTERA, "results": results(miso, watering, light), "context_verdict": verdict},
    )
    assert [(p["n"], p["title"], p["section"]) for p in out["passages"]] == [
        (1, "Monstera Care", "Watering rule"),
        (2, "Monstera Care", "Light and temperature"),
    ]
    assert out["passages"][0]["text"].startswith("**Water only when the top 5 cm of soil is dry.**")
    assert out["notes"] == []


def test_without_a_verdict_every_result_is_context(notes: Components) -> None:
    out = run(
        fetch_parents.make(notes), {"question": MONSTERA, "results": results(*chunks(notes, "Monstera Care")[:2])}
    )
    assert [p["section"] for p in out["passages"]] == ["The plant", "Watering rule"]


def test_a_section_holding_instructions_is_withheld_with_a_warning(notes: Components) -> None:
    inbox, watering = chunks(notes, "会議メモ")[0], chunks(notes, "Monstera Care")[1]
    out = run(fetch_parents.make(notes), {"question": "来週の会議はいつ？", "results": results(inbox, watering)})
    assert [(p["n"], p["title"]) for p in out["passages"]] == [(1, "Monstera Care")]
    assert out["notes"] == [messages.PASSAGE_WITHHELD.format(label="会議メモ", score=inbox["injection"])]
