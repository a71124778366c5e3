"""Score the input guardrail on labelled sets: injection per language and category, and PII.

    python -m evals.guardrails --injection guardrails/data/injection_dev.jsonl \\
        --pii guardrails/data/pii_dev.jsonl [--report evals/reports/guardrails.json]

``--injection FILE``: lines ``{"text", "label": "attack"|"benign", "category"?, "lang"?}``. Each
text goes through the graph's non-LLM injection checks (``nodes.rag.rails``' input check: the
curated patterns, then the embedding classifier; personal data does not block). Reported per
language and per category: recall on attacks, false-positive rate on benign lines, precision,
and the latency of one check (p50/p95, warm; the classifier's embedding included). The curated
patterns alone are the baseline in the same run.

``--pii FILE``: lines ``{"text", "spans": [{"start", "end", "entity_type"}], "lang"?}``, scored by
``evals.pii_eval.score_pii`` (overlap rule, per type and language, latency).

Either flag alone works; the JSON report holds both.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import track
from rich.table import Table

from evals.pii_eval import score_pii

log = logging.getLogger(__name__)
Check = Callable[[str], bool]


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2) if ordered else 0.0


def _cells(rows: list[dict[str, Any]], flagged: list[bool]) -> dict[str, dict[str, Any]]:
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fn": 0, "fp": 0, "tn": 0})
    for r, f in zip(rows, flagged, strict=True):
        attack = r["label"] == "attack"
        key = ("tp" if f else "fn") if attack else ("fp" if f else "tn")
        for cell in ("all", f"lang:{r.get('lang', '?')}", f"category:{r.get('category', '?')}"):
            counts[cell][key] += 1
    out: dict[str, dict[str, Any]] = {}
    for cell, c in sorted(counts.items()):
        attacks, benign, flagged_n = c["tp"] + c["fn"], c["fp"] + c["tn"], c["tp"] + c["fp"]
        out[cell] = {
            "attacks": attacks,
            "benign": benign,
            "recall": round(c["tp"] / attacks, 4) if attacks else None,
            "fpr": round(c["fp"] / benign, 4) if benign else None,
            "precision": round(c["tp"] / flagged_n, 4) if flagged_n else None,
        }
    return out


def score_injection(
    path: Path, make_checks: Callable[[], dict[str, Check]], *, progress: bool = True
) -> dict[str, Any]:
    """Each named check over every line: the cells above and its latency per call.

    The file is read and checked before ``make_checks`` loads any model."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    bad = [i + 1 for i, r in enumerate(rows) if r.get("label") not in ("attack", "benign") or "text" not in r]
    if bad:
        raise SystemExit(f"{path}: lines {bad[:5]} need a 'text' and a 'label' of attack or benign.")
    report: dict[str, Any] = {"lines": len(rows)}
    for name, check in make_checks().items():
        check("warm-up")  # loads the models outside the timing
        flagged: list[bool] = []
        took: list[float] = []
        items = track(rows, description=f"{name}", disable=not progress, transient=True)
        for r in items:
            t0 = time.perf_counter()
            flagged.append(check(r["text"]))
            took.append((time.perf_counter() - t0) * 1000)
        short = [t for t, r in zip(took, rows, strict=True) if len(r["text"]) <= 300]
        report[name] = {
            "cells": _cells(rows, flagged),
            "latency_ms": {"p50": _pct(took, 0.5), "p95": _pct(took, 0.95), "p50_short_texts": _pct(short, 0.5)},
            "misses": [r["text"][:160] for r, f in zip(rows, flagged, strict=True) if (r["label"] == "attack") != f][
                :40
            ],
        }
    return report


def injection_checks() -> dict[str, Check]:
    """The graph's input check (patterns + classifier) and the patterns alone, as yes/no checks."""
    from components.factory import Components
    from guardrails.injection import detector_for
    from guardrails.input import curated_injection

    detector = detector_for(Components().embedder)
    classifier = detector.as_check()
    return {
        "patterns+classifier": lambda t: bool(curated_injection(t) or classifier(t)),
        "patterns": lambda t: bool(curated_injection(t)),
    }


def _print_injection(console: Console, report: dict[str, Any]) -> None:
    for name, part in report.items():
        if not isinstance(part, dict):
            continue
        table = Table(title=f"injection: {name} ({report['lines']} lines)")
        for col in ("cell", "attacks", "recall", "benign", "FPR", "precision"):
            table.add_column(col, justify="right" if col != "cell" else "left")
        for cell, v in part["cells"].items():
            table.add_row(
                cell, str(v["attacks"]), str(v["recall"]), str(v["benign"]), str(v["fpr"]), str(v["precision"])
            )
        console.print(table)
        lat = part["latency_ms"]
        console.print(
            f"latency per check: p50 {lat['p50']} ms, p95 {lat['p95']} ms "
            f"(texts ≤300 chars: p50 {lat['p50_short_texts']} ms)"
        )


def _print_pii(console: Console, report: dict[str, Any]) -> None:
    table = Table(title=f"PII ({report['lines']} lines, load {report['load_seconds']} s)")
    for col in ("cell", "recall", "found/gold", "precision"):
        table.add_column(col)
    for cell, v in [
        ("overall", report["overall"]),
        *report["by_language"].items(),
        *report["by_language_type"].items(),
    ]:
        table.add_row(cell, str(v["recall"]), f"{v['found']}/{v['gold']}", str(v["precision"]))
    console.print(table)


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--injection", type=Path, help="labelled injection JSONL (text, label, category, lang)")
    ap.add_argument("--pii", type=Path, help="labelled PII JSONL (text, spans, lang)")
    ap.add_argument("--report", type=Path, default=Path("evals/reports/guardrails.json"))
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not a.injection and not a.pii:
        ap.error("give --injection FILE.jsonl, --pii FILE.jsonl, or both")
    for path in (a.injection, a.pii):
        if path and not path.is_file():
            ap.error(f"{path}: no such file")
    console = Console()
    report: dict[str, Any] = {}
    if a.injection:
        report["injection"] = score_injection(a.injection, injection_checks, progress=not a.no_progress)
        _print_injection(console, report["injection"])
    if a.pii:
        report["pii"] = score_pii(a.pii)
        _print_pii(console, report["pii"])
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    console.print(f"report written to {a.report}")


if __name__ == "__main__":
    main()
