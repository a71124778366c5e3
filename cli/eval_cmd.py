"""``rag eval``: evaluation runs with RAGAS over a QA file, and the comparison of two runs.

The work is in ``evals/`` (``qa_run``, ``qa_metrics``, ``qa_report``); this module turns its
results and errors into what a person at a terminal reads.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from rich.table import Table

from cli.output import console, err_console
from components.factory import Components
from evals.qa_report import compare, write_report
from evals.qa_run import MANIFEST, SAMPLES, RunOptions, read_records, run_qa, summary_line

log = logging.getLogger(__name__)


def default_folder(c: Components, dataset: Path) -> Path:
    return c.settings.data_dir / "eval" / dataset.stem


def run_and_report(c: Components, opts: RunOptions) -> dict[str, Any]:
    """Run (or continue) the evaluation and write its report; returns the summary shown to the user."""
    import json

    folder, totals = run_qa(c, opts, console=err_console)
    records = read_records(folder / SAMPLES)
    order = {s: i for i, s in enumerate(_dataset_ids(opts))}
    ordered = sorted(records.values(), key=lambda r: order.get(str(r["id"]), len(order)))
    cfg = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["configuration"]
    run = summary_line(totals)
    paths = write_report(folder, ordered, cfg, run)
    report = json.loads(paths["json"].read_text(encoding="utf-8"))
    return {"aggregate": report["aggregate"], "run": run, "files": {k: str(v) for k, v in paths.items()}}


def _dataset_ids(opts: RunOptions) -> list[str]:
    from evals.qa_dataset import load_qa

    samples = load_qa(opts.dataset)
    return [s.id for s in (samples[: opts.limit] if opts.limit else samples)]


def show_summary(summary: dict[str, Any]) -> None:
    agg = summary["aggregate"]
    table = Table(title=f"{agg['questions']} questions · {agg['failed']} failed", show_lines=False)
    table.add_column("metric")
    table.add_column("mean", justify="right")
    table.add_column("n", justify="right")
    for name, m in agg["metrics"].items():
        if m["n"]:
            table.add_row(name, f"{m['mean']:.3f}", str(m["n"]))
    console.print(table)
    lat, fb = agg["latency_ms"], agg["fallback_rate"]
    console.print(
        f"fallback on answerable questions {'—' if fb is None else f'{100 * fb:.1f}%'} · latency p50 "
        f"{lat['p50']} ms, p95 {lat['p95']} ms · scoring {100 * summary['run']['eval_share_of_wall']:.1f}% of wall"
    )
    for key, path in summary["files"].items():
        console.print(f"{key}: {path}", highlight=False)


def compare_reports(a: Path, b: Path, out: Path | None) -> dict[str, Any]:
    result = compare(a, b, out or b.parent)
    table = Table(title="B − A")
    for col in ("metric", "A", "B", "Δ"):
        table.add_column(col, justify="left" if col == "metric" else "right")
    for r in result["metrics"]:
        table.add_row(
            r["metric"],
            *(
                ("—" if v is None else f"{v:+.3f}" if k == "delta" else f"{v:.3f}")
                for k, v in (("a", r["a"]), ("b", r["b"]), ("delta", r["delta"]))
            ),
        )
    console.print(table)
    console.print(f"plot: {result['plot']}", highlight=False)
    return result
