"""How the way dense and BM25 lists are joined moves quality, measured without re-running retrieval.

    python -m evals.fusion_sweep ../shared/data/scifact --split train
    python -m evals.fusion_sweep ../shared/data/jsquad --split test

Uses the store that ``evals.retrieval`` ingested (``--store``, default ``.rag/bench/<dataset>``).
Each judged query is answered once by each retriever (the deepest of ``--depths`` chunks);
every fusion variant is then scored on those same lists, so the differences between rows are
the fusion alone. Variants, at each candidate depth: RRF over a grid of k and dense/BM25
weights, and the convex combination of min-max-normalised scores (Bruch et al., 2023) over a
grid of dense weights.

Choose settings on a training split and check them on another data set: a setting that only
wins on the data it was picked on will not hold on held-out data.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from components.factory import Components
from components.retrieval.dense import dense_search
from components.retrieval.filters import SearchFilters
from components.retrieval.fusion import convex, rrf
from components.retrieval.hits import Hit
from components.retrieval.lexical import bm25_search
from evals.beir import evaluate, load_beir
from evals.retrieval import collection_name, documents, make_settings, progress_bar

log = logging.getLogger(__name__)
NO_FILTERS = SearchFilters()

RRF_KS = (10.0, 30.0, 60.0, 100.0)
RRF_WEIGHTS = ((1.0, 1.0), (1.0, 0.7), (0.7, 1.0))  # (dense, bm25)
CONVEX_ALPHAS = (0.3, 0.4, 0.5, 0.6, 0.7)  # weight of the dense score
BATCH = 32

#: (dense hits, bm25 hits) → document ids, best first
Fusion = Callable[[list[Hit], list[Hit]], list[str]]


def rrf_fusion(k: float, w_dense: float, w_bm25: float, depth: int) -> Fusion:
    def fuse(dense: list[Hit], bm25: list[Hit]) -> list[str]:
        dense, bm25 = dense[:depth], bm25[:depth]
        payload = {h.point_id: h.payload for h in [*dense, *bm25]}
        fused = rrf(
            {"dense": [h.point_id for h in dense], "bm25": [h.point_id for h in bm25]},
            k=k,
            weights={"dense": w_dense, "bm25": w_bm25},
        )
        return [str(payload[pid].get("doc_id")) for pid, _ in fused]

    return fuse


def convex_fusion(alpha: float, depth: int) -> Fusion:
    def fuse(dense: list[Hit], bm25: list[Hit]) -> list[str]:
        dense, bm25 = dense[:depth], bm25[:depth]
        payload = {h.point_id: h.payload for h in [*dense, *bm25]}
        fused = convex(
            {"dense": [(h.point_id, h.score) for h in dense], "bm25": [(h.point_id, h.score) for h in bm25]},
            weights={"dense": alpha, "bm25": 1 - alpha},
        )
        return [str(payload[pid].get("doc_id")) for pid, _ in fused]

    return fuse


def variants(depths: Sequence[int]) -> dict[str, Fusion]:
    out: dict[str, Fusion] = {"dense only": lambda d, b: [str(h.payload.get("doc_id")) for h in d]}
    out["bm25 only"] = lambda d, b: [str(h.payload.get("doc_id")) for h in b]
    for depth in depths:
        for k in RRF_KS:
            for wd, wb in RRF_WEIGHTS:
                out[f"rrf k={k:g} w={wd:g}/{wb:g} depth={depth}"] = rrf_fusion(k, wd, wb, depth)
        for a in CONVEX_ALPHAS:
            out[f"convex dense={a:g} depth={depth}"] = convex_fusion(a, depth)
    return out


def candidates(
    c: Components, collection: str, queries: dict[str, str], n: int
) -> dict[str, tuple[list[Hit], list[Hit]]]:
    """Each query's dense and BM25 hits, queries embedded in batches."""
    ids = list(queries)
    out: dict[str, tuple[list[Hit], list[Hit]]] = {}
    with progress_bar(True) as bar:
        task = bar.add_task("retrieving", total=len(ids))
        for i in range(0, len(ids), BATCH):
            chunk = ids[i : i + BATCH]
            texts = [queries[q] for q in chunk]
            dense, _ = dense_search(
                c.index(collection), c.embedder, texts, NO_FILTERS, limit=n, payloads=c.payload_mirror(collection)
            )
            bm25, _ = bm25_search(c.bm25(collection), c.tokenizer, texts, NO_FILTERS, limit=n)
            for q, d, b in zip(chunk, dense, bm25, strict=True):
                out[q] = (d, b)
            bar.advance(task, len(chunk))
    return out


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", type=Path)
    p.add_argument("--split", default="test")
    p.add_argument("--depths", default="50,100,500", help="candidate depths per retriever to compare")
    p.add_argument("--store", type=Path, default=None)
    p.add_argument("--report", type=Path, default=None)
    a = p.parse_args(argv)
    name = collection_name(a.dataset)
    store = a.store or Path(".rag/bench") / name
    if not (store / "qdrant").exists():
        p.error(f"no benchmark store at {store}; run `python -m evals.retrieval {a.dataset} --split {a.split}` first")
    data = load_beir(a.dataset, a.split)
    c = Components(make_settings(store, name))
    depths = sorted({int(x) for x in a.depths.split(",") if x.strip()})
    lists = candidates(c, name, data.queries, max(depths))
    rows: dict[str, dict[str, Any]] = {}
    for label, fuse in variants(depths).items():
        run = {q: documents(fuse(d, b), 100) for q, (d, b) in lists.items()}
        rows[label] = evaluate(run, data.qrels)
    table = Table(title=f"Fusion variants on {name} {a.split} ({len(lists)} queries)")
    for col in ("variant", "nDCG@10", "R@10", "R@100", "MRR@10"):
        table.add_column(col, justify="left" if col == "variant" else "right")
    for label, m in rows.items():
        table.add_row(label, *(f"{m[x]:.4f}" for x in ("ndcg@10", "recall@10", "recall@100", "mrr@10")))
    Console().print(table)
    report = a.report or Path("evals/reports") / f"fusion-{name}-{a.split}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(json.dumps({"dataset": name, "split": a.split, "variants": rows}, indent=2))
    log.info("report written to %s", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
