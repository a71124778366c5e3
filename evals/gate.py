"""The quality gate: the product's search and Q&A on fixed data nobody tuned on, against floors in the repo.

    python -m evals.gate                          # ../shared/data; floors in evals/floors.json
    python -m evals.gate --work .rag/gate         # keep the store (a second run embeds nothing)
    python -m evals.gate --write-floors "why"     # today's figures become the floors (commit them)

Data: the *check* parts of ``../shared/data`` (``README.md`` there), so no figure here comes from
data a threshold, weight or rule was fitted on:

* JSQuAD: every paragraph of the check articles, ingested with ``rag ingest``'s code (sentence
  vectors included); every second check question (``JSQUAD_EVERY``, in the file's order: 491 of
  982, from every article) ranked as ``rag search --batch -k 10`` ranks them
  (``cli.search_cmd.rank_documents``): nDCG@10 and recall@5; and ``qa-check.jsonl`` answered and
  scored by ``rag eval qa``'s code without an LLM: the reference span in the answer, a gold
  paragraph cited, and the share of answerable questions that fall back ("cannot answer").
* SciFact: the abstracts the train-check claims are judged against, with the abstracts of the
  first tune claims as distractors (``SCIFACT_ABSTRACTS`` in all), and the check claims ranked
  the same way: nDCG@10 and recall@5.

A figure more than ``tolerance`` below its floor (above, for the fallback rate's ceiling) fails
the gate: exit code 1, each failing figure named. Raising a floor is a commit with its reason;
lowering one needs a decision record (``docs/decisions/``). Prints a table, writes a JSON report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from cli.ingest_cmd import run_ingest
from cli.search_cmd import BATCH_CONCURRENCY, rank_documents
from components.factory import Components
from components.settings import Settings
from evals.beir import evaluate, load_qrels
from evals.qa_report import aggregate
from evals.qa_run import SAMPLES, RunOptions, read_records, run_qa
from graph.rag import build_rag_graph

log = logging.getLogger(__name__)

FLOORS = Path(__file__).parent / "floors.json"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
#: the JSQuAD check questions searched: every n-th (a question costs ~70 ms, most of it embedding
#: it alone as the product does; half of them keep the gate within two minutes, decision 0027)
JSQUAD_EVERY = 2
#: abstracts in the SciFact part: every one a check claim is judged against, then distractors
SCIFACT_ABSTRACTS = 250
#: the ranking depth of the search figures: `rag search`'s default
K = 10
#: figures where lower is better; every other figure is "at least its floor"
CEILINGS = frozenset({"jsquad_qa.fallback"})


# ------------------------------------------------------------------------------ data
def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _article(paragraph_id: str) -> str:
    """JSQuAD paragraph ids are ``a<article>p<n>``: the check split is by article."""
    return paragraph_id.rsplit("p", 1)[0]


def jsquad_corpus(data: Path, out: Path) -> tuple[Path, dict[str, dict[str, int]], list[tuple[str, str]]]:
    """Every paragraph of the check articles (as a corpus file), the check qrels, and every
    ``JSQUAD_EVERY``-th check question."""
    qrels = load_qrels(data / "jsquad", "check")
    articles = {_article(d) for rels in qrels.values() for d in rels}
    corpus = [d for d in _jsonl(data / "jsquad" / "corpus.jsonl") if _article(d["_id"]) in articles]
    queries = [(q["_id"], q["text"]) for q in _jsonl(data / "jsquad" / "queries.jsonl") if q["_id"] in qrels]
    return _write_jsonl(out / "jsquad-check.jsonl", corpus), qrels, queries[::JSQUAD_EVERY]


def scifact_corpus(data: Path, out: Path) -> tuple[Path, dict[str, dict[str, int]], list[tuple[str, str]]]:
    """The check claims' abstracts and distractors judged for tune claims, the check qrels and claims."""
    qrels = load_qrels(data / "scifact", "train-check")
    wanted = list(dict.fromkeys(d for rels in qrels.values() for d in rels))
    for rels in load_qrels(data / "scifact", "train-tune").values():
        for d in rels:
            if len(wanted) < SCIFACT_ABSTRACTS and d not in wanted:
                wanted.append(d)
    keep = set(wanted)
    corpus = [d for d in _jsonl(data / "scifact" / "corpus.jsonl") if d["_id"] in keep]
    queries = [(q["_id"], q["text"]) for q in _jsonl(data / "scifact" / "queries.jsonl") if q["_id"] in qrels]
    return _write_jsonl(out / "scifact-check.jsonl", corpus), qrels, queries


# ------------------------------------------------------------------------------ measuring
@contextmanager
def components(store: Path, collection: str, embedder: Any = None) -> Iterator[Components]:
    settings = Settings(qdrant_url=None, qdrant_path=store / "qdrant", data_dir=store / "data", collection=collection)
    c = Components(settings, embedder=embedder)
    try:
        yield c
    finally:
        c.close()


def ranked(c: Components, queries: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Each query's document ranking, as `rag search --batch -k K` writes it; two queries at a
    time (as `rag eval qa` asks its questions), which a query's ranking does not depend on."""
    graph = build_rag_graph(c)
    gate = asyncio.Semaphore(BATCH_CONCURRENCY)  # as `rag search --batch` ranks them

    async def one(text: str) -> list[str]:
        async with gate:
            return [str(d["doc_id"]) for d in await rank_documents(graph, text, k=K)]

    async def all_queries() -> dict[str, list[str]]:
        rankings = await asyncio.gather(*(one(text) for _, text in queries))
        return {qid: r for (qid, _), r in zip(queries, rankings, strict=True)}

    return asyncio.run(all_queries())


def search_figures(
    c: Components,
    corpus: Path,
    qrels: dict[str, dict[str, int]],
    queries: list[tuple[str, str]],
    *,
    sentence_vectors: bool,
) -> dict[str, float]:
    t0 = time.perf_counter()
    report = asyncio.run(
        run_ingest(
            c, [str(corpus)], prune=False, collection=None, show_progress=False, sentence_vectors=sentence_vectors
        )
    )
    if report.get("failures"):
        raise RuntimeError(
            f"{len(report['failures'])} documents of {corpus.name} failed to ingest: {report['failures'][:3]}"
        )
    t1 = time.perf_counter()
    metrics = evaluate(ranked(c, queries), qrels)
    t2 = time.perf_counter()
    log.info(
        "%s: ingested %s chunks in %.0f s, %d queries in %.0f s",
        corpus.stem,
        report.get("written_chunks"),
        t1 - t0,
        len(queries),
        t2 - t1,
    )
    return {"ndcg@10": metrics["ndcg@10"], "recall@5": metrics["recall@5"], "queries": len(queries)}


def qa_figures(c: Components, dataset: Path, out: Path) -> dict[str, float]:
    """`rag eval qa` without an LLM (its answering and scoring; no report files): span in the
    answer, a gold paragraph cited, fallback on answerable questions."""
    t0 = time.perf_counter()
    folder, _ = run_qa(c, RunOptions(dataset=dataset, out=out, fresh=True, progress=False))
    agg = aggregate(list(read_records(folder / SAMPLES).values()))
    log.info("%s: %d questions in %.0f s", dataset.name, agg["questions"], time.perf_counter() - t0)
    return {
        "span": agg["metrics"]["span_in_answer"]["mean"],
        "cited": agg["metrics"]["cites_gold"]["mean"],
        "fallback": agg["fallback_rate"],
        "questions": agg["questions"],
    }


def measure(data: Path, work: Path) -> dict[str, dict[str, float]]:
    corpora = work / "corpora"
    jsquad, jq_rels, jq_queries = jsquad_corpus(data, corpora)
    scifact, sf_rels, sf_queries = scifact_corpus(data, corpora)
    figures: dict[str, dict[str, float]] = {}
    with components(work, "jsquad-check") as c:
        figures["jsquad"] = search_figures(c, jsquad, jq_rels, jq_queries, sentence_vectors=True)
        figures["jsquad_qa"] = qa_figures(c, data / "jsquad" / "qa-check.jsonl", work / "eval-jsquad")
        embedder = c.embedder
    with components(work, "scifact-check", embedder) as c:
        figures["scifact"] = search_figures(c, scifact, sf_rels, sf_queries, sentence_vectors=False)
    return figures


# ------------------------------------------------------------------------------ judging
def flat(figures: dict[str, dict[str, float]]) -> dict[str, float]:
    return {
        f"{part}.{name}": float(v)
        for part, fs in figures.items()
        for name, v in fs.items()
        if name != "queries" and name != "questions"
    }


def verdicts(measured: dict[str, float], floors: dict[str, float], tolerance: float) -> list[dict[str, Any]]:
    """One row per figure with a floor: measured, floor, passed (within ``tolerance`` of it)."""
    rows = []
    for name, floor in floors.items():
        got = measured.get(name)
        if got is None:
            rows.append({"figure": name, "measured": None, "floor": floor, "passed": False})
            continue
        ceiling = name in CEILINGS
        passed = got <= floor + tolerance if ceiling else got >= floor - tolerance
        rows.append({"figure": name, "measured": round(got, 4), "floor": floor, "ceiling": ceiling, "passed": passed})
    return rows


def show(rows: list[dict[str, Any]], tolerance: float, seconds: float, console: Console) -> None:
    t = Table(title=f"Quality gate (check splits; tolerance {tolerance}; {seconds:.0f} s)")
    for col in ("figure", "measured", "floor", ""):
        t.add_column(col, justify="left" if col in ("figure", "") else "right")
    for r in rows:
        bound = f"≤ {r['floor']:.4f}" if r.get("ceiling") else f"≥ {r['floor']:.4f}"
        got = "—" if r["measured"] is None else f"{r['measured']:.4f}"
        t.add_row(r["figure"], got, bound, "[green]ok[/]" if r["passed"] else "[bold red]BELOW[/]")
    console.print(t)


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    log.setLevel(logging.INFO)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=DATA, help="the shared data folder (jsquad/, scifact/)")
    p.add_argument("--floors", type=Path, default=FLOORS)
    p.add_argument("--work", type=Path, default=None, help="store and corpora here (default: a temporary folder)")
    p.add_argument("--report", type=Path, default=Path("evals/reports/gate.json"))
    p.add_argument("--write-floors", metavar="REASON", default=None, help="make today's figures the floors")
    a = p.parse_args(argv)
    for need in ("jsquad/qrels/check.tsv", "jsquad/qa-check.jsonl", "scifact/qrels/train-check.tsv"):
        if not (a.data / need).is_file():
            p.error(f"{a.data / need} not found: give --data, the folder ../shared/data/README.md describes")
    spec: dict[str, Any] = (
        json.loads(a.floors.read_text(encoding="utf-8")) if a.floors.is_file() else {"tolerance": 0.01, "floors": {}}
    )
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rag-gate-") as tmp:
        figures = measure(a.data, a.work or Path(tmp))
    seconds = time.perf_counter() - t0
    measured = flat(figures)
    if a.write_floors is not None:
        spec = {
            **spec,
            "floors": {k: round(v, 4) for k, v in measured.items()},
            "set": str(date.today()),
            "reason": a.write_floors,
        }
        a.floors.write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        log.info("floors written to %s", a.floors)
    rows = verdicts(measured, spec["floors"], float(spec["tolerance"]))
    show(rows, float(spec["tolerance"]), seconds, Console())
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps({"figures": figures, "verdicts": rows, "seconds": round(seconds, 1)}, indent=2))
    failed = [r["figure"] for r in rows if not r["passed"]]
    if not spec["floors"]:
        log.error("no floors in %s: run with --write-floors REASON once", a.floors)
        return 1
    if failed:
        log.error(
            "below the floor: %s (evals/floors.json; lowering a floor needs a decision record)", ", ".join(failed)
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
