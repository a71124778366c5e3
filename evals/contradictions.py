"""Sentences of two documents that state different values for the same thing: the detector, fitted and judged.

    python -m evals.contradictions [--data evals/data/contradictions.jsonl] [--report FILE]

Data: ``evals/data/contradictions.jsonl``, written for this (issue 36): one pair a line, ``{"id",
"lang", "older", "newer", "older_date", "newer_date", "contradiction": bool, "split"}``; half are
contradictions (a note and its revision with a changed value), half look alike without being one
(the same value reworded, the same unit for another subject, another unit). The one number the
detector has, ``components.heuristics.contradictions.SAME_WORDS`` (how much two sentences' words
must overlap), is fitted on the tune half: midway between the highest overlap of a tune look-alike
the units flag and the lowest of a tune contradiction, on a 0.05 grid. Precision and recall are
printed for tune and check at the fitted value and at the shipped one.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from components.heuristics.contradictions import SAME_WORDS, contradicting
from components.heuristics.contradictions import overlap as word_overlap
from components.text.tokenizer import Tokenizer

log = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parent / "data" / "contradictions.jsonl"
TARGETS = {"precision": 0.90, "recall": 0.80}


def overlap(row: dict[str, Any], tokenize: Tokenizer) -> float | None:
    """The pair's word overlap when its units give different values (else None: never flagged)."""
    if contradicting(row["older"], row["newer"], tokenize, same_words=0.0) is None:
        return None
    return word_overlap(row["older"], row["newer"], tokenize)


def fit(rows: Sequence[dict[str, Any]], overlaps: Sequence[float | None]) -> float:
    """Midway between the highest-overlap flagged look-alike and the lowest-overlap contradiction of the tune rows."""
    pos = [o for r, o in zip(rows, overlaps, strict=True) if r["contradiction"] and o is not None]
    neg = [o for r, o in zip(rows, overlaps, strict=True) if not r["contradiction"] and o is not None]
    lo, hi = max(neg, default=0.0), min(pos, default=1.0)
    return round(math.ceil(((lo + hi) / 2) / 0.05 - 1e-9) * 0.05, 2)


def scores(rows: Sequence[dict[str, Any]], overlaps: Sequence[float | None], same_words: float) -> dict[str, Any]:
    flagged = [o is not None and o >= same_words for o in overlaps]
    tp = sum(f and r["contradiction"] for f, r in zip(flagged, rows, strict=True))
    fp = sum(f and not r["contradiction"] for f, r in zip(flagged, rows, strict=True))
    fn = sum(not f and r["contradiction"] for f, r in zip(flagged, rows, strict=True))
    return {
        "pairs": len(rows),
        "precision": round(tp / (tp + fp), 4) if tp + fp else None,
        "recall": round(tp / (tp + fn), 4) if tp + fn else None,
        "false_positives": [r["id"] for f, r in zip(flagged, rows, strict=True) if f and not r["contradiction"]],
        "missed": [r["id"] for f, r in zip(flagged, rows, strict=True) if not f and r["contradiction"]],
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--report", type=Path, default=Path("evals/reports/contradictions.json"))
    a = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    rows = [json.loads(line) for line in a.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    tokenize = Tokenizer()
    overlaps = [overlap(r, tokenize) for r in rows]
    tune = [i for i, r in enumerate(rows) if r["split"] == "tune"]
    fitted = fit([rows[i] for i in tune], [overlaps[i] for i in tune])
    report: dict[str, Any] = {"data": str(a.data), "fitted_same_words": fitted, "shipped_same_words": SAME_WORDS}
    table = Table(title=f"Contradictions (targets: precision ≥ {TARGETS['precision']}, recall ≥ {TARGETS['recall']})")
    for col in ("same_words", "split/lang", "pairs", "precision", "recall", "false positives", "missed"):
        table.add_column(col)
    for label, value in (("fitted", fitted), ("shipped", SAME_WORDS)):
        for split in ("tune", "check"):
            for lang in ("all", "en", "ja"):
                idx = [i for i, r in enumerate(rows) if r["split"] == split and lang in ("all", r["lang"])]
                s = scores([rows[i] for i in idx], [overlaps[i] for i in idx], value)
                report[f"{label}/{split}/{lang}"] = s
                table.add_row(
                    f"{label} {value}",
                    f"{split}/{lang}",
                    str(s["pairs"]),
                    str(s["precision"]),
                    str(s["recall"]),
                    ", ".join(s["false_positives"]) or "-",
                    ", ".join(s["missed"]) or "-",
                )
    Console().print(table)
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    log.info("report written to %s", a.report)


if __name__ == "__main__":
    main()
