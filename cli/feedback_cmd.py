"""``rag feedback``: a verdict on an answer in a thread, the list for review, the golden export."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from rich.table import Table

from cli.output import console
from components.factory import Components
from components.stores.feedback import Verdict
from graph.feedback import give_feedback, golden_lines, review
from graph.threads import open_rag_graph


def give(c: Components, thread_id: str, verdict: str, reason: str, checkpoint_id: str | None) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        async with open_rag_graph(c) as graph:
            record = await give_feedback(graph, c, thread_id, verdict, reason, checkpoint_id=checkpoint_id)
        return record.as_dict()

    return asyncio.run(main())


def listed(c: Components, verdict: Verdict | None, limit: int | None) -> list[dict[str, Any]]:
    return review(c, c.feedback.list(verdict, limit=limit))


def show(rows: list[dict[str, Any]]) -> None:
    table = Table(title=f"{len(rows)} feedback entries (newest first)")
    for col in ("id", "when", "verdict", "question", "reason", "thread"):
        table.add_column(col, overflow="fold")
    for r in rows:
        verdict = r["verdict"] + (" (older index)" if r["stale"] else "")
        table.add_row(
            str(r["id"]), r["created_at"], verdict, _short(r["question"]), _short(r["reason"]), r["thread_id"]
        )
    console.print(table)


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def export(c: Components, verdict: Verdict, path: Path) -> int:
    """Write the ``verdict`` answers as ``rag eval qa`` lines to ``path``; returns how many."""
    lines = golden_lines(listed(c, verdict, None))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), encoding="utf-8")
    tmp.replace(path)  # a half-written golden set never replaces a whole one
    return len(lines)
