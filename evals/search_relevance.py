"""Does search say "nothing found" when nothing matches, and keep what does? The minimum score, measured.

    rag ingest examples/vaults
    python -m evals.search_relevance                       # the sample vaults' sets
    python -m evals.search_relevance --beir ../shared/data/scifact --split train-check

Runs the compiled graph in search mode with no minimum (``min_score=0``) over

* ``--no-match`` (default ``evals/data/no_match_queries.jsonl``): nonsense and off-corpus queries
  in Japanese and English, written for the sample vaults; each should come back empty;
* ``--known`` (default ``evals/data/vault_qa.jsonl``): the answerable, self-contained questions of
  the vault QA set; each should keep its gold note in the top 3;
* ``--cross-lingual`` (default ``evals/data/cross_lingual.jsonl``): Japanese questions about the
  English notes and English questions about the Japanese ones; each should keep its gold note in
  the top 5 (``xl_top5``, and per question language);
* ``--metadata`` (alone): questions that are conditions on documents, through Q&A: route accuracy
  and the listed documents' precision, recall and F1 (``evals/metadata_route.py``);
* ``--beir`` (optional): a BEIR split's judged queries, nDCG@10 of the document ranking (as
  ``rag search --batch`` makes it) with and without each minimum.

Scores are non-increasing along each ranking, so one run answers every minimum: a minimum keeps
the head of each list. Prints a table per minimum, marks the default, writes a JSON report
(``--report``) and, with matplotlib installed (the ``eval`` extra), a plot of the sweep.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from cli.search_cmd import rank_documents
from components.factory import Components
from evals import metadata_route
from evals.beir import evaluate, load_beir
from evals.qa_dataset import load_qa
from evals.qa_metrics import match_ids
from graph.context import Context
from graph.rag import build_rag_graph

log = logging.getLogger(__name__)
HERE = Path(__file__).parent
MINIMUMS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)


@dataclass(frozen=True)
class Ranked:
    """One query's results: each document (its best chunk) with its score, in rank order."""

    query_id: str
    kind: str
    lang: str
    docs: list[tuple[str, float]]

    def above(self, minimum: float) -> list[str]:
        return [d for d, s in self.docs if s >= minimum]


def no_match_queries(path: Path) -> list[tuple[str, str, str, str]]:
    """(id, kind, lang, text) of each line."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            row = json.loads(line)
            out.append((row.get("id") or f"line-{n}", row.get("kind", "no-match"), row.get("lang", ""), row["text"]))
    return out


def run_queries(
    c: Components, queries: Sequence[tuple[str, str, str, str]], *, top_k: int, gold: dict[str, list[str]] | None = None
) -> list[Ranked]:
    """Each query as ``rag search --batch -k top_k`` ranks it (no minimum: ``rank_documents``);
    documents as gold ids where they are gold (a note's id is its path)."""
    graph = build_rag_graph(c)
    out: list[Ranked] = []

    async def all_of() -> None:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()) as bar:
            task = bar.add_task("searching", total=len(queries))
            for qid, kind, lang, text in queries:
                docs = await rank_documents(graph, text, k=top_k)
                paths = [str(d["doc_id"]) for d in docs]
                ids = match_ids(paths, paths, (gold or {}).get(qid, []))
                out.append(Ranked(qid, kind, lang, [(i, float(d["score"])) for i, d in zip(ids, docs, strict=True)]))
                bar.advance(task)

    asyncio.run(all_of())
    return out


def hit_at(r: Ranked, gold: dict[str, list[str]], minimum: float, k: int) -> bool:
    return any(d in gold[r.query_id] for d in r.above(minimum)[:k])


def sweep(
    no_match: list[Ranked],
    known: list[Ranked],
    gold: dict[str, list[str]],
    beir: list[Ranked],
    qrels: dict[str, dict[str, int]],
    cross: Sequence[Ranked] = (),
) -> list[dict[str, Any]]:
    """The figures at each minimum."""
    rows = []
    for m in MINIMUMS:
        row: dict[str, Any] = {"min_score": m}
        if no_match:
            row["empty"] = sum(not r.above(m) for r in no_match) / len(no_match)
            for kind in sorted({r.kind for r in no_match}):
                part = [r for r in no_match if r.kind == kind]
                row[f"empty_{kind}"] = sum(not r.above(m) for r in part) / len(part)
        if known:
            row["known_top3"] = sum(hit_at(r, gold, m, 3) for r in known) / len(known)
        if cross:
            row["xl_top5"] = sum(hit_at(r, gold, m, 5) for r in cross) / len(cross)
            for lang in sorted({r.lang for r in cross}):
                part = [r for r in cross if r.lang == lang]
                row[f"xl_top5_{lang}"] = sum(hit_at(r, gold, m, 5) for r in part) / len(part)
        if beir:
            row["ndcg@10"] = evaluate({r.query_id: r.above(m) for r in beir}, qrels)["ndcg@10"]
        rows.append(row)
    return rows


def _rank(r: Ranked, gold: dict[str, list[str]]) -> int | None:
    return next((i for i, (d, _) in enumerate(r.docs, start=1) if d in gold[r.query_id]), None)


def _score(r: Ranked, gold: dict[str, list[str]]) -> float | None:
    return next((s for d, s in r.docs if d in gold[r.query_id]), None)


def plot(rows: list[dict[str, Any]], default: float, path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.info("matplotlib is not installed (pip install -e '.[eval]'): no plot")
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    xs = [r["min_score"] for r in rows]
    for key, label in (
        ("empty", "no-match queries that come back empty"),
        ("known_top3", "known items kept in the top 3"),
        ("xl_top5", "cross-lingual: gold note in the top 5"),
        ("ndcg@10", "nDCG@10 with the minimum applied"),
    ):
        if key in rows[0]:
            ax.plot(xs, [r[key] for r in rows], marker="o", label=label)
    ax.axvline(default, color="grey", linestyle="--", label=f"default min_score {default:g}")
    ax.set_xlabel("minimum score (probability of relevance)")
    ax.set_ylim(0, 1.02)
    ax.legend(loc="lower left", fontsize=8)
    ax.set_title("What the minimum score keeps and drops")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-match", type=Path, default=HERE / "data" / "no_match_queries.jsonl")
    ap.add_argument("--known", type=Path, default=HERE / "data" / "vault_qa.jsonl")
    ap.add_argument("--cross-lingual", type=Path, default=HERE / "data" / "cross_lingual.jsonl")
    ap.add_argument("--beir", type=Path, help="a BEIR folder whose corpus is the ingested collection")
    ap.add_argument("--split", default="train-check", help="the BEIR split (quote a check split: README)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many BEIR queries (0: all)")
    ap.add_argument("--report", type=Path, default=Path("search-relevance.json"))
    ap.add_argument(
        "--metadata",
        nargs="?",
        type=Path,
        const=metadata_route.DATA,
        default=None,
        help="instead: questions that are conditions on documents (default file: evals/data/metadata_questions.jsonl)",
    )
    ap.add_argument("--metadata-split", choices=("tune", "check", "all"), default="all")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    console = Console()
    c = Components()
    if args.metadata is not None:
        report = metadata_route.run(c, args.metadata, args.metadata_split)
        metadata_route.show(report, console)
        path = args.report if args.report != Path("search-relevance.json") else Path("metadata-route.json")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
        console.print(f"report: {path}")
        return
    default = Context().min_score
    no_match = run_queries(c, no_match_queries(args.no_match), top_k=10) if args.no_match.name else []
    gold: dict[str, list[str]] = {}
    known: list[Ranked] = []
    if args.known.name:
        samples = [s for s in load_qa(args.known) if s.answerable and s.context_ids and not s.history and not s.filters]
        gold = {s.id: list(s.context_ids) for s in samples}
        known = run_queries(c, [(s.id, "known", "", s.question) for s in samples], top_k=10, gold=gold)
    cross: list[Ranked] = []
    if args.cross_lingual.name:
        pairs = load_qa(args.cross_lingual)
        gold.update({s.id: list(s.context_ids) for s in pairs})
        cross = run_queries(
            c, [(s.id, "cross", str(s.extra.get("lang", "")), s.question) for s in pairs], top_k=10, gold=gold
        )
    beir: list[Ranked] = []
    qrels: dict[str, dict[str, int]] = {}
    if args.beir:
        data = load_beir(args.beir, args.split)
        qids = [q for q in data.queries if q in data.qrels]
        qids = qids[: args.limit] if args.limit else qids
        qrels = {q: data.qrels[q] for q in qids}
        beir = run_queries(c, [(q, "beir", "", data.queries[q]) for q in qids], top_k=10)
    rows = sweep(no_match, known, gold, beir, qrels, cross)
    table = Table(title="search with a minimum score")
    for key in rows[0]:
        table.add_column(key, justify="right")
    for r in rows:
        mark = " (default)" if r["min_score"] == default else ""
        table.add_row(*[f"{v:g}{mark}" if k == "min_score" else f"{v:.3f}" for k, v in r.items()])
    console.print(table)
    report = {
        "default_min_score": default,
        "model": c.embedder.model_id,
        "collection": c.settings.collection,
        "no_match_file": str(args.no_match),
        "known_file": str(args.known),
        "beir": str(args.beir) if args.beir else None,
        "split": args.split if args.beir else None,
        "sweep": rows,
        "no_match_leaks": [
            {"id": r.query_id, "best": r.docs[0][1], "doc": r.docs[0][0]} for r in no_match if r.above(default)
        ],
        "known_misses": [r.query_id for r in known if not hit_at(r, gold, default, 3)],
        "cross_lingual_file": str(args.cross_lingual),
        "cross_lingual_misses": [
            {"id": r.query_id, "gold_rank": _rank(r, gold), "gold_score": _score(r, gold), "top": r.docs[:1]}
            for r in cross
            if not hit_at(r, gold, default, 5)
        ],
    }
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    drawn = plot(rows, default, args.report.with_suffix(".png"))
    console.print(f"report: {args.report}" + (f", plot: {drawn}" if drawn else ""))


if __name__ == "__main__":
    main()
