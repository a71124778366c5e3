"""Sentences of two documents that state different values for the same thing: the detector, fitted and judged.

    python -m evals.contradictions [--data evals/data/contradictions.jsonl] [--report FILE]
    python -m evals.contradictions --benchmarks 300   # + the share of benchmark answers warned of

Data: ``evals/data/contradictions.jsonl``, written for this (issue 36): one pair a line, ``{"id",
"lang", "older", "newer", "older_date", "newer_date", "contradiction": bool, "split"}``; half are
contradictions (a note and its revision with a changed value), half look alike without being one
(the same value reworded, the same unit for another subject, another unit). The one number the
detector has, ``components.heuristics.contradictions.SAME_WORDS`` (how much two sentences' words
must overlap), is fitted on the tune half: midway between the highest overlap of a tune look-alike
the units flag and the lowest of a tune contradiction, on a 0.05 grid. Precision and recall are
printed for tune and check at the fitted value and at the shipped one.

``--benchmarks N`` also answers the first N check questions of JSQuAD and SciFact (the quality
gate's corpora, ingested into a temporary store; the compiled graph, no LLM) and counts the answers
that carry a "Sources disagree" warning: encyclopaedia paragraphs and abstracts are not revisions
of each other, so a warning there is a false alarm (issue 36: at most 2%).
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


def benchmark_warnings(limit: int) -> dict[str, Any]:
    """Per benchmark: answers given, and how many carry a "Sources disagree" warning (with examples)."""
    import asyncio
    import tempfile

    from cli.ingest_cmd import run_ingest
    from evals.gate import DATA as GATE_DATA
    from evals.gate import components, jsquad_corpus, scifact_corpus
    from graph.context import Context
    from graph.rag import build_rag_graph

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="rag-contradictions-") as tmp:
        work = Path(tmp)
        corpora = work / "corpora"
        for name, (path, _, queries) in (
            ("jsquad", jsquad_corpus(GATE_DATA, corpora)),
            ("scifact", scifact_corpus(GATE_DATA, corpora)),
        ):
            with components(work, name) as c:
                asyncio.run(
                    run_ingest(c, [str(path)], prune=False, collection=None, show_progress=False, sentence_vectors=True)
                )
                graph = build_rag_graph(c)

                async def answer_all(graph: Any = graph, queries: list[tuple[str, str]] = queries) -> list[list[str]]:
                    said = []
                    for _, q in queries[:limit]:
                        o = await graph.ainvoke({"question": q}, context=Context(cache=False))
                        said.append([w for w in o.get("warnings") or [] if w.startswith("Sources disagree")])
                    return said

                said = asyncio.run(answer_all())
            warned = [w[0] for w in said if w]
            out[name] = {"answers": len(said), "warned": len(warned), "share": round(len(warned) / len(said), 4)}
            out[name]["examples"] = warned[:5]
            log.warning("%s: %s", name, {k: v for k, v in out[name].items() if k != "examples"})
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--report", type=Path, default=Path("evals/reports/contradictions.json"))
    ap.add_argument("--benchmarks", type=int, default=0, help="also answer N check questions of JSQuAD and SciFact")
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
    if a.benchmarks:
        report["benchmarks"] = benchmark_warnings(a.benchmarks)
        for name, b in report["benchmarks"].items():
            Console().print(
                f"{name}: {b['warned']} of {b['answers']} answers warned of disagreeing sources ({b['share']})"
            )
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    log.info("report written to %s", a.report)


if __name__ == "__main__":
    main()
