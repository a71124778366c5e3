"""Questions that are conditions on documents: routed to the listing, and the right documents listed.

    rag ingest examples/vaults
    python -m evals.search_relevance --metadata [--split check]

Data: ``evals/data/metadata_questions.jsonl``, written for the sample vaults, one question a line:
``{"id", "lang", "question", "route": "metadata_search"|"vector_search", "expected": [paths inside the
vault] | null, "split": "tune"|"check"}``. ``metadata_search`` questions state only conditions (a
tag, a vault, a date or period) and name the notes that meet them (an empty list when none does);
``vector_search`` questions state a topic as well and must stay on vector search with the filters
applied. Rules were changed only for misses of the tune half; the check half is the figure to quote.

Each question runs through the compiled graph in Q&A mode (``rag ask``'s path, cache off, no LLM
unless one is configured). Reported per split and language: route accuracy (each question's route
against its expected one), and for the metadata questions the listed documents' precision, recall
and F1 (micro over the listed and expected documents; a question expecting none and listing none
counts as right), beside issue 36's targets (route accuracy and F1 ≥ 0.95); and how many mixed
questions got an answer rather than the fallback.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from components.factory import Components
from graph.context import Context
from graph.rag import build_rag_graph

log = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parent / "data" / "metadata_questions.jsonl"
ROUTES = ("metadata_search", "vector_search")
TARGET = 0.95


@dataclass(frozen=True)
class Asked:
    """One question's outcome."""

    id: str
    lang: str
    split: str
    expected_route: str
    route: str
    expected: tuple[str, ...] | None
    listed: tuple[str, ...]
    answered: bool
    """An answer, not the fallback (what a mixed question's user sees, its route aside)."""

    @property
    def routed_right(self) -> bool:
        return self.route == self.expected_route

    def found(self) -> int:
        return sum(any(_same(doc, e) for doc in self.listed) for e in self.expected or ())

    def right(self) -> int:
        return sum(any(_same(doc, e) for e in self.expected or ()) for doc in self.listed)


def _same(doc_id: str, place: str) -> bool:
    """A stored document id (an absolute path) is the expected note (a path inside the vault)."""
    return doc_id == place or doc_id.endswith("/" + place)


def read_questions(path: Path, split: str = "all") -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    bad = [r.get("id", "?") for r in rows if r.get("route") not in ROUTES or not r.get("question")]
    if bad:
        raise SystemExit(f"{path}: {bad[:5]} need a question and a route in {ROUTES}")
    return [r for r in rows if split == "all" or r.get("split") == split]


def ask_all(c: Components, rows: Sequence[dict[str, Any]]) -> list[Asked]:
    """Each question through the compiled graph, as ``rag ask`` runs it (cache off)."""
    graph = build_rag_graph(c)
    context = Context(cache=False)

    async def one(row: dict[str, Any]) -> Asked:
        out = await graph.ainvoke({"question": row["question"]}, context=context)
        listed = tuple(str(s.get("doc_id")) for s in out.get("sources") or []) if out.get("path") == "metadata" else ()
        expected = row.get("expected")
        return Asked(
            id=row["id"],
            lang=row.get("lang", ""),
            split=row.get("split", ""),
            expected_route=row["route"],
            route=str(out.get("route") or ""),
            expected=tuple(expected) if expected is not None else None,
            listed=listed,
            answered=out.get("path") in ("llm", "extractive", "metadata"),
        )

    async def every() -> list[Asked]:
        return [await one(r) for r in rows]

    return asyncio.run(every())


def figures(asked: Sequence[Asked]) -> dict[str, Any]:
    """Route accuracy over every question; precision, recall and F1 of the listings."""
    listings = [a for a in asked if a.expected_route == "metadata_search"]
    listed = sum(len(a.listed) for a in listings)
    expected = sum(len(a.expected or ()) for a in listings)
    right = sum(a.right() for a in listings)
    found = sum(a.found() for a in listings)
    # a question expecting none and listing none is right: count it as one document both ways
    empty_ok = sum(1 for a in listings if not a.expected and not a.listed and a.routed_right)
    precision = (right + empty_ok) / (listed + empty_ok) if listed + empty_ok else None
    recall = (found + empty_ok) / (expected + empty_ok) if expected + empty_ok else None
    f1 = 2 * precision * recall / (precision + recall) if precision and recall else (0.0 if listings else None)
    return {
        "questions": len(asked),
        "route_accuracy": _share(sum(a.routed_right for a in asked), len(asked)),
        "metadata_questions": len(listings),
        "metadata_routed": _share(sum(a.routed_right for a in listings), len(listings)),
        "mixed_questions": len(asked) - len(listings),
        "mixed_kept_on_vector": _share(
            sum(a.routed_right for a in asked if a.expected_route == "vector_search"), len(asked) - len(listings)
        ),
        "mixed_answered": _share(
            sum(a.answered for a in asked if a.expected_route == "vector_search"), len(asked) - len(listings)
        ),
        "precision": _round(precision),
        "recall": _round(recall),
        "f1": _round(f1),
    }


def _share(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def _round(x: float | None) -> float | None:
    return round(x, 4) if x is not None else None


def cells(asked: Sequence[Asked]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Asked]] = defaultdict(list)
    for a in asked:
        groups[f"{a.split}/{a.lang}"].append(a)
        groups[f"{a.split}/all"].append(a)
        groups["all/all"].append(a)
    return {k: figures(groups[k]) for k in sorted(groups, key=lambda k: (k.startswith("all"), k))}


def misses(asked: Sequence[Asked]) -> list[dict[str, Any]]:
    """Questions routed wrong or listed wrong, with what they got."""
    out = []
    for a in asked:
        wrong_list = a.expected is not None and (a.found() < len(a.expected) or a.right() < len(a.listed))
        if not a.routed_right or wrong_list:
            out.append({"id": a.id, "route": a.route, "expected_route": a.expected_route, "listed": list(a.listed)})
    return out


def show(report: dict[str, Any], console: Console) -> None:
    table = Table(
        title=f"Metadata questions (targets: route accuracy and listed F1 ≥ {TARGET})",
        caption="route: routed as expected; listings: conditions routed to the listing; mixed kept: on vector "
        "search; answered: mixed given an answer, not the fallback; P/R/F1: the listed documents",
    )
    cols = ("split/lang", "n", "route", "listings", "mixed kept", "answered")
    for col in (*cols, "P", "R", "F1"):
        table.add_column(col, justify="left" if col == "split/lang" else "right", no_wrap=col == "split/lang")

    def fmt(x: Any) -> str:
        return "—" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))

    for name, f in report["cells"].items():
        table.add_row(
            name,
            fmt(f["questions"]),
            fmt(f["route_accuracy"]),
            fmt(f["metadata_routed"]),
            fmt(f["mixed_kept_on_vector"]),
            fmt(f["mixed_answered"]),
            fmt(f["precision"]),
            fmt(f["recall"]),
            fmt(f["f1"]),
        )
    console.print(table)
    for m in report["misses"]:
        console.print(f"miss {m['id']}: route {m['route']} (expected {m['expected_route']}), listed {len(m['listed'])}")


def run(c: Components, data: Path, split: str) -> dict[str, Any]:
    rows = read_questions(data, split)
    if not rows:
        raise SystemExit(f"{data}: no questions in split {split!r}")
    asked = ask_all(c, rows)
    return {"data": str(data), "split": split, "cells": cells(asked), "misses": misses(asked)}
