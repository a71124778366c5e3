"""Which way of joining the dense and BM25 lists ranks best: chosen on a tune split, reported on its check split.

    python -m evals.fusion_sweep ../shared/data/scifact --tune train-tune --check train-check
    python -m evals.fusion_sweep ../shared/data/jsquad --tune tune --check check --limit 500

Every variant is the product's own search (the compiled graph, ranked as ``rag search --batch -k
10`` ranks, ``cli.search_cmd.rank_documents``) with the run's Context set to it: RRF over a grid
of k and dense/BM25 weights, the convex combination of min-max-scaled scores (Bruch et al.,
2023) over a grid of dense weights, and each retriever alone, at each of ``--depths`` candidates
per retriever. The store is the one ``evals.retrieval`` ingests (``--store``, default
``.rag/bench/<dataset>``), made when missing.

The best variant by nDCG@10 on the tune split is marked; its check figure is the one to quote.
A variant that wins on tune and loses on check fits the tune questions, not the task.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from cli.search_cmd import rank_documents
from components.factory import Components
from components.retrieval.fusion import DEFAULT
from evals.beir import evaluate, load_beir
from evals.retrieval import collection_name, ingest, make_settings, progress_bar
from graph.context import Context
from graph.rag import build_rag_graph

log = logging.getLogger(__name__)

RRF_KS = (10.0, 30.0, 60.0, 100.0)
RRF_WEIGHTS = ((1.0, 1.0), (1.0, 0.7), (0.7, 1.0))  # (dense, bm25)
CONVEX_ALPHAS = (0.3, 0.4, 0.5, 0.6, 0.7)  # weight of the dense score
K = 10


@dataclass(frozen=True)
class Variant:
    label: str
    context: Context


def variants(depths: list[int]) -> list[Variant]:
    """Each retriever alone, then every fusion setting, at every depth; the product's default first."""
    out: list[Variant] = []
    for depth in depths:
        base = Context(candidates=depth, rerank=False)
        out.append(Variant(f"default ({DEFAULT}) depth={depth}", base))
        out.append(Variant(f"dense only depth={depth}", Context(candidates=depth, rerank=False, retrievers=("dense",))))
        out.append(Variant(f"bm25 only depth={depth}", Context(candidates=depth, rerank=False, retrievers=("bm25",))))
        for k in RRF_KS:
            for wd, wb in RRF_WEIGHTS:
                ctx = Context(candidates=depth, rerank=False, fusion="rrf", rrf_k=k, dense_weight=wd, bm25_weight=wb)
                out.append(Variant(f"rrf k={k:g} w={wd:g}/{wb:g} depth={depth}", ctx))
        for a in CONVEX_ALPHAS:
            ctx = Context(candidates=depth, rerank=False, fusion="convex", dense_weight=a, bm25_weight=1 - a)
            out.append(Variant(f"convex dense={a:g} depth={depth}", ctx))
    return out


def sweep(c: Components, splits: dict[str, Any], chosen: list[Variant], limit: int | None) -> dict[str, Any]:
    """nDCG@10 and friends per variant and split, every ranking made by the product's search."""
    graph = build_rag_graph(c)
    loop = asyncio.Runner()
    rows: dict[str, dict[str, Any]] = {v.label: {} for v in chosen}
    try:
        with progress_bar(True) as bar:
            for part, ds in splits.items():
                qs = [(q, t) for q, t in ds.queries.items() if q in ds.qrels][:limit]
                task = bar.add_task(f"{part}: {len(chosen)} variants", total=len(chosen) * len(qs))
                for v in chosen:
                    run = {}
                    for q, text in qs:
                        docs = loop.run(rank_documents(graph, text, k=K, context=v.context))
                        run[q] = [str(d["doc_id"]) for d in docs]
                        bar.advance(task)
                    rows[v.label][part] = evaluate(run, {q: ds.qrels[q] for q, _ in qs})
    finally:
        loop.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", type=Path)
    p.add_argument("--tune", required=True, help="the split the best variant is chosen on")
    p.add_argument("--check", required=True, help="the split its figure is quoted from")
    p.add_argument("--depths", default="50", help="candidates per retriever to compare (Context.candidates)")
    p.add_argument("--limit", type=int, default=None, help="only the first N judged questions of each split")
    p.add_argument("--store", type=Path, default=None)
    p.add_argument("--report", type=Path, default=None)
    a = p.parse_args(argv)
    name = collection_name(a.dataset)
    store = a.store or Path(".rag/bench") / name
    splits = {"tune": load_beir(a.dataset, a.tune), "check": load_beir(a.dataset, a.check)}
    c = Components(make_settings(store, name))
    try:
        ingest(c, a.dataset / "corpus.jsonl", progress=True, sentence_vectors=False)
        chosen = variants(sorted({int(x) for x in a.depths.split(",") if x.strip()}))
        rows = sweep(c, splits, chosen, a.limit)
    finally:
        c.close()
    best = max(rows, key=lambda label: rows[label]["tune"]["ndcg@10"])
    table = Table(
        title=f"Fusion on {name}: chosen on {a.tune}, quoted on {a.check} (nDCG@10, rag search --batch -k {K})"
    )
    for col in ("variant", f"{a.tune}", f"{a.check}", "R@10 check"):
        table.add_column(col, justify="left" if col == "variant" else "right")
    for label, m in rows.items():
        mark = " [bold green]← best on tune[/]" if label == best else ""
        table.add_row(
            label + mark,
            f"{m['tune']['ndcg@10']:.4f}",
            f"{m['check']['ndcg@10']:.4f}",
            f"{m['check']['recall@10']:.4f}",
        )
    Console().print(table)
    report = a.report or Path("evals/reports") / f"fusion-{name}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(
        json.dumps(
            {"dataset": name, "tune": a.tune, "check": a.check, "best_on_tune": best, "variants": rows}, indent=2
        )
    )
    log.info("best on %s: %s; report written to %s", a.tune, best, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
