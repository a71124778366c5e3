"""BM25 inside the engine against today's BM25: the quality half of the embedded-engine decision.

    python -m evals.lexical_engine ../shared/data/scifact:train ../shared/data/jsquad:test
                                   [--report evals/reports/lexical-engine.json]

Document level, lexical only, the same tokens on both sides (the project's Japanese/English
tokenizer over title and text). Today: ``evals.bm25_memory.BM25Index`` (rank-bm25's Okapi
statistics over the live corpus, k1 1.5, b 0.75). Engine: Qdrant Edge with each document's BM25
term weights stored as a sparse vector (tf saturated against the corpus's average length, the
same k1 and b) and the IDF applied by the engine at query time (``Modifier.Idf``), which is what
makes an edited document cost that document only. Prints nDCG@10 and Recall@100 per data set
and the difference; issue 18 allows the engine at most 0.005 nDCG@10 below today's.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import track
from rich.table import Table

from evals.beir import evaluate, load_beir
from evals.scale import K1, B, query_terms, sparse_of


def compare(spec: str, console: Console, limit: int = 100) -> dict[str, Any]:
    import qdrant_edge as qe

    from components.text.tokenizer import Tokenizer
    from evals.bm25_memory import BM25Index

    path, _, split = spec.partition(":")
    data = load_beir(Path(path), split or "test")
    tokenize = Tokenizer()
    ids = list(data.corpus)
    tokens = [
        tokenize(f"{d['title']}\n{d['text']}") for d in track(data.corpus.values(), "tokenizing", console=console)
    ]
    queries = {qid: tokenize(text) for qid, text in data.queries.items()}

    t0 = time.perf_counter()
    today = BM25Index(ids, ids, tokens, k1=K1, b=B)
    runs: dict[str, dict[str, list[str]]] = {"today": {}, "engine": {}}
    for qid, q in queries.items():
        runs["today"][qid] = [h.point_id for h in today.search(q, limit=limit)]
    today_s = time.perf_counter() - t0

    avgdl = sum(len(t) for t in tokens) / max(1, len(tokens))
    with tempfile.TemporaryDirectory(prefix="rag-lexical-") as tmp:
        t0 = time.perf_counter()
        config = qe.EdgeConfig(sparse_vectors={"bm25": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)})
        shard = qe.EdgeShard.create(str(Path(tmp) / "shard"), config)
        points = []
        for i, (doc_id, toks) in enumerate(zip(ids, tokens, strict=True)):
            keys, values = sparse_of(toks, avgdl)
            points.append(
                qe.Point(id=i, vector={"bm25": qe.SparseVector(indices=keys, values=values)}, payload={"d": doc_id})
            )
        for start in range(0, len(points), 1000):
            shard.update(qe.UpdateOperation.upsert_points(points[start : start + 1000]))
        shard.optimize()
        for qid, q in queries.items():
            keys, values = query_terms(q)
            found = shard.query(
                qe.QueryRequest(
                    limit=limit,
                    query=qe.Query.Nearest(qe.SparseVector(indices=keys, values=values), using="bm25"),
                    with_payload=True,
                )
            )
            runs["engine"][qid] = [str((p.payload or {}).get("d")) for p in found]
        shard.close()
        engine_s = time.perf_counter() - t0
    scores = {name: evaluate(run, data.qrels) for name, run in runs.items()}
    return {
        "data": spec,
        "documents": len(ids),
        "queries": len(queries),
        "today": scores["today"],
        "engine": scores["engine"],
        "seconds": {"today": today_s, "engine": engine_s},
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", nargs="+", help="BEIR folder[:split]")
    p.add_argument("--report", type=Path, default=Path("evals/reports/lexical-engine.json"))
    args = p.parse_args(argv)
    console = Console()
    results = [compare(spec, console) for spec in args.data]
    t = Table(title="BM25: today's index against BM25 weights inside Qdrant Edge (same tokens)")
    for col in (
        "data",
        "docs",
        "queries",
        "today nDCG@10",
        "engine nDCG@10",
        "difference",
        "today R@100",
        "engine R@100",
    ):
        t.add_column(col, justify="right")
    for r in results:
        a, b = r["today"], r["engine"]
        t.add_row(
            r["data"],
            str(r["documents"]),
            str(r["queries"]),
            f"{a['ndcg@10']:.4f}",
            f"{b['ndcg@10']:.4f}",
            f"{b['ndcg@10'] - a['ndcg@10']:+.4f}",
            f"{a['recall@100']:.4f}",
            f"{b['recall@100']:.4f}",
        )
    console.print(t)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(results, indent=2), encoding="utf-8")
    console.print(f"report: {args.report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
