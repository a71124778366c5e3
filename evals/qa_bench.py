"""Q&A graph benchmark: extractive answers end to end, and the graph's own orchestration overhead.

    python -m evals.qa_bench ../shared/data/scifact --split train --limit-queries 100

1. The corpus is ingested into the same persistent store as ``evals.retrieval`` (reused when
   current). Judged queries of the split are asked through the compiled ``rag`` graph.
2. ``extractive``: the embedded default (no LLM; every node on its non-LLM path; semantic cache
   off so every question runs the whole pipeline). Per question: wall time, route, path, loops,
   whether the answer fell back, and whether its cited sources include a judged-relevant document.
   Baseline in the same run: hybrid retrieval alone (``search`` mode of the same graph), so the
   ratio shows what the Q&A nodes add.
3. ``orchestration``: every LLM role answered instantly by a scripted chat model (the test fake),
   so that what remains beyond the nodes' own work is LangGraph's scheduling and state handling.
   Each node's interval is recorded in ``steps``; overhead per run = wall time − the union of node
   intervals (parallel nodes overlap, so their time is counted once).

Prints tables, writes a JSON report (default ``evals/reports/qa-<dataset>.json``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from rich.console import Console
from rich.table import Table

from components.factory import Components
from evals.beir import BeirDataset, load_beir
from evals.retrieval import collection_name, ingest, latency_stats, make_settings, progress_bar, select_queries
from graph.context import Context
from graph.rag import build_rag_graph
from nodes.rag import prompts

log = logging.getLogger(__name__)
WARMUP_QUESTIONS = (
    "Which proteins regulate the cell cycle?",
    "Does vitamin D supplementation reduce fracture risk?",
    "How are antibiotics resistant bacteria spreading in hospitals?",
)


@dataclass(frozen=True)
class Options:
    dataset: Path
    split: str
    limit_queries: int | None
    store: Path
    report: Path
    progress: bool


def busy_ms(steps: list[dict[str, Any]]) -> float:
    """Milliseconds covered by at least one node (the union of their intervals)."""
    spans = sorted((s["start"], s["start"] + s["ms"] / 1000) for s in steps if "start" in s)
    total, end = 0.0, float("-inf")
    for a, b in spans:
        if a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total * 1000


async def timed_runs(
    graph: Any, embedder: Any, questions: list[tuple[str, str]], ctx: Context, *, mode: str, label: str, progress: bool
) -> list[tuple[str, float, dict[str, Any]]]:
    """(query id, wall ms, output) per question, after a few warm-up runs on other questions.

    The embedder's query cache is cleared first, so no pass profits from vectors computed by
    the one before it (within a run, reusing the question's vector is part of the design).
    """
    for q in WARMUP_QUESTIONS:
        await graph.ainvoke({"question": q, "mode": mode}, context=ctx)
    embedder.clear_query_cache()
    out = []
    with progress_bar(progress) as bar:
        task = bar.add_task(label, total=len(questions))
        for qid, q in questions:
            t0 = time.perf_counter()
            res = await graph.ainvoke({"question": q, "mode": mode}, context=ctx)
            out.append((qid, (time.perf_counter() - t0) * 1000, res))
            bar.advance(task)
    return out


def node_means(runs: list[tuple[str, float, dict[str, Any]]]) -> dict[str, float]:
    per: dict[str, list[float]] = defaultdict(list)
    for _, _, res in runs:
        for s in res.get("steps") or []:
            per[s["node"]].append(s["ms"])
    return {n: round(sum(v) / len(runs), 2) for n, v in sorted(per.items(), key=lambda kv: -sum(kv[1]))}


def answer_quality(runs: list[tuple[str, float, dict[str, Any]]], ds: BeirDataset) -> dict[str, Any]:
    """Share of answers that fell back, and of answers citing a judged-relevant document."""
    n = len(runs)
    fallback = sum(1 for _, _, r in runs if r.get("escalation"))
    cites_relevant = sum(
        1 for qid, _, r in runs if any(str(s.get("doc_id")) in ds.qrels.get(qid, {}) for s in r.get("sources") or [])
    )
    return {
        "answers": n,
        "fallback_rate": round(fallback / n, 3),
        "cites_relevant_doc_rate": round(cites_relevant / n, 3),
        "paths": dict(Counter(str(r.get("path")) for _, _, r in runs)),
        "routes": dict(Counter(str(r.get("route")) for _, _, r in runs)),
        "mean_rewrites": round(
            statistics.mean(
                sum(1 for s in r.get("steps") or [] if s["node"] == "rewrite_query") - 1 for _, _, r in runs
            ),
            3,
        ),
    }


def scripted_models() -> dict[str, Any]:
    """Instant chat models for every role (the test fake): route to vector search, grade positively."""
    from tests.fakes.scripted_llm import ScriptedChatModel

    def router(messages: list[BaseMessage]) -> Any:
        if str(messages[0].content).startswith(prompts.ANALYZE_SYSTEM[:40]):
            return {"tags": [], "vaults": [], "created_from": None, "created_to": None}
        return {"route": "vector_search", "reason": "benchmark"}

    def rewriter(messages: list[BaseMessage]) -> Any:
        last = next(m for m in reversed(messages) if isinstance(m, HumanMessage))
        return {"question": str(last.content), "hypothetical_answer": ""}

    def grader(messages: list[BaseMessage]) -> Any:
        system = str(messages[0].content)
        if system.startswith(prompts.GRADE_CONTEXT_SYSTEM[:40]):
            return {"relevant": [1], "reason": "benchmark"}
        if system.startswith(prompts.HALLUCINATION_SYSTEM[:40]):
            return {"grounded": True, "unsupported": []}
        return {"useful": True, "reason": "benchmark"}

    return {
        "router": ScriptedChatModel(router),
        "rewriter": ScriptedChatModel(rewriter),
        "grader": ScriptedChatModel(grader),
        "generator": ScriptedChatModel(lambda _m: "The passages answer it [1]."),
    }


def run(opts: Options) -> dict[str, Any]:
    ds = load_beir(opts.dataset, opts.split)
    collection = collection_name(opts.dataset)
    settings = make_settings(opts.store, collection)
    base = Components(settings)
    try:
        ingested = ingest(base, opts.dataset / "corpus.jsonl", progress=opts.progress)
        questions = select_queries(ds, opts.limit_queries)
        ctx = Context(cache=False)

        async def measure() -> dict[str, Any]:
            graph = build_rag_graph(base)
            search = await timed_runs(
                graph, base.embedder, questions, ctx, mode="search", label="search", progress=opts.progress
            )
            qa = await timed_runs(
                graph, base.embedder, questions, ctx, mode="qa", label="extractive Q&A", progress=opts.progress
            )
            scripted = Components(settings, embedder=base.embedder, chat_models=scripted_models(), store_of=base)
            orch = await timed_runs(
                build_rag_graph(scripted),
                base.embedder,
                questions,
                ctx,
                mode="qa",
                label="scripted LLM",
                progress=opts.progress,
            )
            overhead = [max(0.0, ms - busy_ms(r.get("steps") or [])) for _, ms, r in orch]
            search_p50 = latency_stats([ms for _, ms, _ in search])["p50"]
            qa_stats = latency_stats([ms for _, ms, _ in qa])
            return {
                "search": {"latency_ms": latency_stats([ms for _, ms, _ in search])},
                "extractive": {
                    "latency_ms": qa_stats,
                    "p50_vs_search": round(qa_stats["p50"] / search_p50, 2) if search_p50 else None,
                    "node_mean_ms": node_means(qa),
                    "quality": answer_quality(qa, ds),
                },
                "orchestration": {
                    "overhead_ms": latency_stats(overhead),
                    "run_latency_ms": latency_stats([ms for _, ms, _ in orch]),
                    "nodes_per_run": round(statistics.mean(len(r.get("steps") or []) for _, _, r in orch), 1),
                    "node_mean_ms": node_means(orch),
                    "paths": dict(Counter(str(r.get("path")) for _, _, r in orch)),
                },
            }

        results = asyncio.run(measure())
        return {
            "dataset": ds.name,
            "split": opts.split,
            "questions": len(questions),
            "chunks": base.index(collection).count(),
            "embedder": base.embedder.model_id,
            "ingest": ingested,
            "machine": {"cpus": os.cpu_count(), "loadavg_1m_at_end": os.getloadavg()[0]},
            "warmup_runs": len(WARMUP_QUESTIONS),
            **results,
            "notes": [
                "extractive: no LLM configured, semantic cache off; wall time per question through the compiled graph.",
                "search: the same graph in search mode (hybrid retrieval, no Q&A nodes) as the in-run baseline.",
                "orchestration: scripted instant chat models; overhead = wall time minus the union of node intervals.",
            ],
        }
    finally:
        base.close()


def render(report: dict[str, Any], console: Console) -> None:
    t = Table(title=f"Q&A on {report['dataset']} ({report['split']}, {report['questions']} questions)")
    for col in ("measure", "p50 ms", "p95 ms", "mean ms"):
        t.add_column(col, justify="right" if col != "measure" else "left")
    rows = [
        ("search (baseline)", report["search"]["latency_ms"]),
        ("extractive Q&A", report["extractive"]["latency_ms"]),
        ("scripted-LLM run", report["orchestration"]["run_latency_ms"]),
        ("orchestration overhead", report["orchestration"]["overhead_ms"]),
    ]
    for name, s in rows:
        t.add_row(name, f"{s['p50']:.1f}", f"{s['p95']:.1f}", f"{s['mean']:.1f}")
    console.print(t)
    q = report["extractive"]["quality"]
    console.print(
        f"extractive: p50 {report['extractive']['p50_vs_search']}x search; fallback rate {q['fallback_rate']}; "
        f"cites a relevant document {q['cites_relevant_doc_rate']}; paths {q['paths']}; routes {q['routes']}; "
        f"mean rewrites {q['mean_rewrites']}"
    )
    nodes = report["extractive"]["node_mean_ms"]
    console.print("extractive mean ms per node: " + ", ".join(f"{n} {v}" for n, v in nodes.items()))


def parse(argv: list[str] | None = None) -> Options:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", type=Path, help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv")
    p.add_argument("--split", default="test")
    p.add_argument("--limit-queries", type=int, default=100, help="first N judged queries (default 100)")
    p.add_argument("--store", type=Path, default=None, help="embedded store folder (default .rag/bench/<dataset>)")
    p.add_argument("--report", type=Path, default=None)
    p.add_argument("--no-progress", action="store_true")
    a = p.parse_args(argv)
    name = collection_name(a.dataset)
    return Options(
        dataset=a.dataset,
        split=a.split,
        limit_queries=a.limit_queries,
        store=a.store or Path(".rag/bench") / name,
        report=a.report or Path("evals/reports") / f"qa-{name}.json",
        progress=not a.no_progress,
    )


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    opts = parse(argv)
    report = run(opts)
    render(report, Console())
    opts.report.parent.mkdir(parents=True, exist_ok=True)
    opts.report.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    log.info("report written to %s", opts.report)


if __name__ == "__main__":
    main()
