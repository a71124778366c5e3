"""Score a ``rag search --batch`` run file against a BEIR split's judgements.

    rag search --batch ../shared/data/scifact/queries.jsonl -k 100 > run.jsonl
    python -m evals.score_run ../shared/data/scifact --split train run.jsonl

Judged queries missing from the run count as empty rankings (score 0), so a run that dropped
queries cannot look better than it is; the number missing is printed. Queries in the run that
the split does not judge are ignored. Prints the metrics and, with ``--report``, writes them as
JSON.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from evals.beir import evaluate, load_qrels

log = logging.getLogger(__name__)


class RunFileError(ValueError):
    """A line of the run file does not follow the batch contract."""


def read_run(path: Path) -> dict[str, list[str]]:
    """Document rankings per query id, in rank order, from the batch output's JSON lines."""
    run: dict[str, list[str]] = {}
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                qid = str(row["query_id"])
                results = sorted(row["results"], key=lambda r: r["rank"])
                run[qid] = [str(r["doc_id"]) for r in results]
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                raise RunFileError(
                    f"{path}:{n}: not a batch result line ({e.__class__.__name__}: {e}); expected "
                    '{"query_id": ..., "results": [{"doc_id": ..., "rank": ...}, ...]} as `rag search --batch` writes'
                ) from None
    return run


def score(run: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict[str, Any]:
    """Metrics over every judged query (missing ones as empty rankings), with the coverage counts."""
    missing = [q for q in qrels if q not in run]
    metrics = evaluate({q: run.get(q, []) for q in qrels}, qrels)
    return {
        "judged_queries": len(qrels),
        "missing": len(missing),
        "unjudged_in_run": len(set(run) - set(qrels)),
        **metrics,
    }


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", type=Path, help="BEIR folder holding qrels/<split>.tsv")
    p.add_argument("run", type=Path, help="the JSON lines written by `rag search --batch`")
    p.add_argument("--split", default="test")
    p.add_argument("--report", type=Path, default=None, help="also write the figures as JSON here")
    a = p.parse_args(argv)
    try:
        qrels = load_qrels(a.dataset, a.split)
        run = read_run(a.run)
    except (FileNotFoundError, RunFileError) as e:
        p.error(str(e))
    result = score(run, qrels)
    table = Table(title=f"{a.run.name} on {a.dataset.name} {a.split}")
    table.add_column("figure")
    table.add_column("value", justify="right")
    for key, v in result.items():
        table.add_row(key, f"{v:.4f}" if isinstance(v, float) else str(v))
    Console().print(table)
    if result["missing"]:
        log.warning("%d judged queries are not in the run; they count as 0", result["missing"])
    if a.report:
        a.report.parent.mkdir(parents=True, exist_ok=True)
        a.report.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
