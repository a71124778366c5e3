"""Semantic cache benchmark: a cache hit through the whole graph against the same question uncached.

    python -m evals.cache_bench [--rounds 5] [--report evals/reports/cache-bench.json]

The sample vaults are ingested into a temporary store; the ten questions of
``examples/QUESTIONS.md`` (Japanese and English) are asked through the compiled graph on the
embedded defaults (no LLM). Baseline: each question with the cache off (the full pipeline).
Measured: the same question once stored, asked again (a hit: input guardrail, query analysis,
the cache lookup, output). Wall times per run, warm process, p50 and p95 over
``rounds`` x 10 runs, and the ratio; a JSON report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from components.factory import Components
from components.settings import Settings
from graph.context import Context
from graph.ingest import build_ingest_graph
from graph.ingest_state import IngestContext
from graph.rag import build_rag_graph

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def questions() -> list[str]:
    text = (EXAMPLES / "QUESTIONS.md").read_text(encoding="utf-8")
    return re.findall(r"^### \d+\. (.+)$", text, flags=re.M)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--report", type=Path, default=Path("evals/reports/cache-bench.json"))
    a = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="cache-bench-"))
    c = Components(Settings(qdrant_path=root / "qdrant", data_dir=root / "data", _env_file=None))  # type: ignore[call-arg]
    asyncio.run(
        build_ingest_graph(c).ainvoke({"paths": [str(EXAMPLES / "vaults")]}, context=IngestContext(batch_documents=64))
    )
    graph = build_rag_graph(c)
    qs = questions()

    def run(q: str, ctx: Context) -> tuple[float, dict[str, Any]]:
        t0 = time.perf_counter()
        out: dict[str, Any] = asyncio.run(graph.ainvoke({"question": q}, context=ctx))
        return (time.perf_counter() - t0) * 1000, out

    for q in qs:  # warm-up, and every answer stored once
        run(q, Context())
    miss: list[float] = []
    hit: list[float] = []
    hits = 0
    for _ in range(a.rounds):
        for q in qs:
            miss.append(run(q, Context(cache=False))[0])
            took, out = run(q, Context())
            hit.append(took)
            hits += bool(out.get("cache_hit"))
    c.close()
    report = {
        "questions": len(qs),
        "rounds": a.rounds,
        "hit_rate": round(hits / len(hit), 4),
        "uncached_ms": {"p50": pct(miss, 0.5), "p95": pct(miss, 0.95), "mean": round(statistics.mean(miss), 2)},
        "cache_hit_ms": {"p50": pct(hit, 0.5), "p95": pct(hit, 0.95), "mean": round(statistics.mean(hit), 2)},
    }
    report["p50_ratio"] = round(report["cache_hit_ms"]["p50"] / report["uncached_ms"]["p50"], 3)  # type: ignore[index]
    table = Table(title=f"semantic cache through the graph ({len(qs)} questions x {a.rounds})")
    for col in ("run", "p50 ms", "p95 ms", "mean ms"):
        table.add_column(col)
    for name, key in (("uncached (baseline)", "uncached_ms"), ("cache hit", "cache_hit_ms")):
        v = report[key]
        table.add_row(name, str(v["p50"]), str(v["p95"]), str(v["mean"]))  # type: ignore[index]
    console = Console()
    console.print(table)
    console.print(f"hit rate {report['hit_rate']}, hit p50 / uncached p50 = {report['p50_ratio']}")
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
