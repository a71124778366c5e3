"""First ingestion by another git revision's code beside this tree's, in one run (``ingest_bench --against``).

Each side runs `rag ingest SOURCE --json` as a user would, in a fresh process and a fresh store,
the two alternating round by round so that the machine's drift falls on both: wall seconds
(model load included, as a user waits for it), the command's own seconds, documents per second,
and this tree's speed-up over the revision.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.process import code_at, interpreter_and_cpus, run_rag, store_env


def ingest(source: Path, store: Path, code: Path | None) -> dict[str, Any]:
    """`rag ingest SOURCE --json` into a new store under ``store``, by ``code`` (another revision's
    tree) or by this one: its JSON summary and the wall seconds."""
    env = {**store_env(store / "qdrant", store / "data"), "RAG_SERVER": "off"}
    out, wall = run_rag(["ingest", str(source.resolve()), "--json"], env, code=code, timeout=7200)
    summary: dict[str, Any] = json.loads(out)
    return {**summary, "wall_seconds": wall}


def compare(source: Path, rev: str, rounds: int = 1, *, label: str = "") -> dict[str, Any]:
    """Both sides' first ingestion of ``source`` (named ``label`` in the report), ``rounds`` times
    each, alternating."""
    runs: dict[str, list[dict[str, Any]]] = {"baseline": [], "this": []}
    with tempfile.TemporaryDirectory(prefix="rag-ingest-against-") as tmp:
        code = code_at(rev, Path(tmp) / "code")
        order: list[tuple[str, Path | None]] = [("baseline", code), ("this", None)]
        for r in range(rounds):  # each side goes first every other round
            for side, tree in order if r % 2 == 0 else order[::-1]:
                runs[side].append(ingest(source, Path(tmp) / f"{side}-{r}", tree))
    out: dict[str, Any] = {"source": label or str(source), "against": rev, "rounds": rounds, "runs": runs}
    for side, done in runs.items():
        docs = int(done[0]["documents"])
        wall = statistics.median(d["wall_seconds"] for d in done)
        own = statistics.median(float(d.get("seconds") or 0.0) for d in done)
        out[side] = {"documents": docs, "wall_seconds": wall, "seconds": own, "docs_per_s": docs / own if own else 0.0}
    out["speedup"] = out["baseline"]["seconds"] / out["this"]["seconds"] if out["this"]["seconds"] else 0.0
    return {**out, **interpreter_and_cpus()}


def table(report: dict[str, Any]) -> Table:
    t = Table(title=f"first ingestion of {report['source']}, median of {report['rounds']} (alternating)")
    for col in ("code", "documents", "ingest seconds", "documents/s", "wall seconds (model load too)"):
        t.add_column(col)
    for side, label in (("baseline", report["against"]), ("this", "this tree")):
        s = report[side]
        t.add_row(
            label, str(s["documents"]), f"{s['seconds']:.1f}", f"{s['docs_per_s']:.2f}", f"{s['wall_seconds']:.1f}"
        )
    t.caption = f"speed-up {report['speedup']:.2f}x (target 3x)"
    return t


def run(source: Path, rev: str, rounds: int, report: Path, *, label: str = "") -> int:
    out = compare(source, rev, rounds, label=label)
    Console().print(table(out))
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps(out, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0
