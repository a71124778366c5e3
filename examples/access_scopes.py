"""Two people ask the same question of one index; each sees what their groups allow.

    python examples/access_scopes.py

Builds a throw-away embedded index of three notes (one public, one shared with `hr`, one with
`finance`) and searches it as a caller with no groups, as `hr` and as `finance`.
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path

from components.factory import Components
from components.settings import Settings
from graph.context import Context
from graph.ingest import build_ingest_graph
from graph.rag import build_rag_graph

log = logging.getLogger("access_scopes")

NOTES = {
    "Holidays.md": "# Company holidays\n\nThe office is closed from 29 December to 3 January.\n",
    "Salaries.md": "---\naccess: [hr]\n---\n# Salary bands\n\nEngineers earn 9 to 14 million yen.\n",
    "Budget.md": "---\naccess: finance\n---\n# Budget\n\nThe 2026 marketing budget is 40 million yen.\n",
}


async def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="access-scopes-"))
    for name, text in NOTES.items():
        (root / name).write_text(text, encoding="utf-8")
    c = Components(Settings(qdrant_path=root / "qdrant", data_dir=root / "data", _env_file=None))  # type: ignore[call-arg]
    await build_ingest_graph(c).ainvoke({"paths": [str(root)]})
    graph = build_rag_graph(c)
    for who, groups in (("a guest", ()), ("an HR partner", ("hr",)), ("the CFO", ("finance",))):
        out = await graph.ainvoke(
            {"mode": "search", "question": "salary budget holidays", "top_k": 5},
            context=Context(user_id=who, access_groups=groups),
        )
        log.info("%s sees: %s", who, ", ".join(sorted({r["title"] for r in out["results"]})))
    c.close()


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(message)s", force=True)
    log.setLevel(logging.INFO)
    asyncio.run(main())
