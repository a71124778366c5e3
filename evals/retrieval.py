"""Retrieval quality and latency per mode on a BEIR data set, against a LangChain baseline.

    python -m evals.retrieval ../shared/data/scifact --split train
    python -m evals.retrieval ../shared/data/jsquad --split test --modes bm25,dense,hybrid,langchain
    python -m evals.retrieval ../shared/data/scifact --split train --limit-queries 100 --scaling

1. The corpus is ingested with the real ingestion graph into a persistent embedded store
   (``--store``, default ``.rag/bench/<dataset>``); a second run finds every document
   unchanged and embeds nothing.
2. Each judged query of the split is answered by every mode through the product's own search:
   the compiled graph in search mode, each ranking made by ``cli.search_cmd.rank_documents``
   exactly as ``rag search --batch -k K`` makes it (documents at their best chunk, depth
   ``--k``), the mode set by the run's Context. Modes: ``bm25`` and ``dense`` (one retriever,
   ``Context.retrievers``), ``hybrid`` (both, fused by ``--fusion``: RRF with ``--rrf-k``, or
   the convex combination; ``--dense-weight``, ``--bm25-weight``), ``hybrid+rerank`` (the
   cross-encoder of RERANKER_MODEL on the top ``--rerank-candidates`` fused chunks; skipped
   without one) and ``langchain`` (``evals.langchain_baseline``: EnsembleRetriever of
   BM25Retriever and QdrantVectorStore, weights 0.5/0.5), the baseline. ``--runs DIR`` writes
   each mode's rankings as batch-contract lines (``DIR/<mode>.jsonl``, ``evals.score_run`` reads them).
3. Metrics (document level): nDCG@10, Recall@5/10/100, MRR@10. Latency: per query and mode,
   after 5 warm-up queries, p50/p95 in ms: the whole search run (input rail, analysis, both
   retrievers in parallel, fusion, scores), as ``rag search`` pays it; langchain's includes
   embedding the query.
4. ``--scaling``: p50/p95 latency per mode on synthetic collections of about 10k and 100k chunks
   made from the ingested points (vectors copied, doc ids perturbed; nothing re-embedded).
   The store is the embedded default (Qdrant Edge, HNSW; ``QDRANT_ENGINE=local`` measures
   qdrant-client local mode, whose brute-force dense latency grows linearly).

Prints tables and writes a JSON report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from cli.ingest_cmd import run_ingest
from cli.search_cmd import rank_documents
from components.factory import Components
from components.models.embedders import Embedder
from components.retrieval import fusion
from components.settings import Settings
from components.stores.edge_models import point
from components.stores.points import StoredPoint
from components.stores.qdrant import QdrantIndex
from evals.beir import BeirDataset, evaluate, load_beir
from evals.langchain_baseline import build_baseline
from graph.context import Context
from graph.rag import build_rag_graph

log = logging.getLogger(__name__)

ALL_MODES = ("bm25", "dense", "hybrid", "hybrid+rerank", "langchain")
BASELINE = "langchain"
WARMUP = 5
SCALE_NS = uuid.UUID("2b0c5f5e-8f0d-4f71-9d51-3c1f7a8e6d24")

#: one query in, a document ranking out
Runner = Callable[[str], list[str]]


@dataclass(frozen=True)
class Options:
    dataset: Path
    split: str
    modes: tuple[str, ...]
    k: int
    candidates: int
    rrf_k: float
    fusion: str
    dense_weight: float
    bm25_weight: float
    rerank_candidates: int
    limit_queries: int | None
    store: Path
    report: Path
    scaling: bool
    scaling_sizes: tuple[int, ...]
    scaling_queries: int
    runs: Path | None
    progress: bool

    @property
    def collection(self) -> str:
        return collection_name(self.dataset)


# ------------------------------------------------------------------------------- helpers
def collection_name(dataset: Path) -> str:
    """The data set folder's name as a valid collection name."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", dataset.resolve().name).strip("-")
    return name or "beir"


def make_settings(store: Path, collection: str) -> Settings:
    """An embedded store under ``store``; embedding (and reranker) settings from the environment."""
    return Settings(qdrant_url=None, qdrant_path=store / "qdrant", data_dir=store / "data", collection=collection)


def progress_bar(enabled: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        disable=not enabled,
    )


def documents(doc_ids: Sequence[str], k: int) -> list[str]:
    """Chunks' document ids in rank order → documents at their best chunk, depth ``k``."""
    out: list[str] = []
    seen: set[str] = set()
    for d in doc_ids:
        if d not in seen:
            seen.add(d)
            out.append(d)
            if len(out) == k:
                break
    return out


def latency_stats(ms: Sequence[float]) -> dict[str, float]:
    """p50, p95 and mean in ms, and the sample count."""
    a = np.asarray(ms, dtype=np.float64)
    if a.size == 0:
        return {"p50": 0.0, "p95": 0.0, "mean": 0.0, "n": 0}
    return {
        "p50": float(np.percentile(a, 50)),
        "p95": float(np.percentile(a, 95)),
        "mean": float(a.mean()),
        "n": int(a.size),
    }


def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


# ------------------------------------------------------------------------------- ingestion
def ingest(c: Components, corpus: Path, *, progress: bool, sentence_vectors: bool = True) -> dict[str, Any]:
    """Run the ingestion graph on the corpus; an unchanged corpus embeds nothing. Search alone
    reads no sentence vectors (``sentence_vectors=False`` halves a first ingestion)."""
    t0 = time.perf_counter()
    result = asyncio.run(
        run_ingest(
            c, [str(corpus)], prune=False, collection=None, show_progress=progress, sentence_vectors=sentence_vectors
        )
    )
    seconds = time.perf_counter() - t0
    if result.get("failures"):
        log.warning("%d documents failed to ingest", len(result["failures"]))
    log.info(
        "ingestion: %s documents, %s unchanged, %s written (%s chunks) in %.1fs",
        result.get("documents"),
        result.get("unchanged"),
        result.get("written_documents"),
        result.get("written_chunks"),
        seconds,
    )
    return {
        "seconds": seconds,
        "documents": result.get("documents"),
        "unchanged": result.get("unchanged"),
        "written_documents": result.get("written_documents"),
        "written_chunks": result.get("written_chunks"),
        "failures": len(result.get("failures") or []),
        "version": result.get("version"),
    }


# ------------------------------------------------------------------------------- modes
#: each mode of the product's search, as the run's Context knobs that make it
MODE_CONTEXT: dict[str, dict[str, Any]] = {
    "bm25": {"retrievers": ("bm25",), "rerank": False},
    "dense": {"retrievers": ("dense",), "rerank": False},
    "hybrid": {"rerank": False},
    "hybrid+rerank": {"rerank": True},
}


class ProductSearch:
    """The product's search (the compiled graph, ranked as ``rag search --batch`` ranks) as one
    synchronous runner per mode, on one event loop."""

    def __init__(self, c: Components, collection: str, opts: Options) -> None:
        self.graph = build_rag_graph(c)
        self.collection = collection
        self.opts = opts
        self.loop = asyncio.Runner()

    def context(self, mode: str) -> Context:
        o = self.opts
        return Context(
            candidates=o.candidates,
            rrf_k=o.rrf_k,
            fusion=o.fusion,
            dense_weight=o.dense_weight,
            bm25_weight=o.bm25_weight,
            rerank_candidates=o.rerank_candidates,
            cache=False,
            **MODE_CONTEXT[mode],
        )

    def runner(self, mode: str) -> Runner:
        ctx = self.context(mode)

        def run(q: str) -> list[str]:
            docs = self.loop.run(rank_documents(self.graph, q, k=self.opts.k, collection=self.collection, context=ctx))
            return [str(d["doc_id"]) for d in docs]

        return run

    def close(self) -> None:
        self.loop.close()


def langchain_runner(c: Components, collection: str, opts: Options) -> tuple[Runner, float]:
    baseline = build_baseline(c, collection, k=opts.candidates)

    def run(q: str) -> list[str]:
        return documents(baseline.chunk_doc_ids(q), opts.k)

    return run, baseline.build_seconds


def reranker_skip_reason(c: Components) -> str | None:
    """Why hybrid+rerank cannot run here, or None when the cross-encoder loads."""
    if not c.settings.reranker_model:
        return "no cross-encoder configured (set RERANKER_MODEL to a local model folder)"
    reranker = c.reranker
    assert reranker is not None
    try:
        reranker.warm_up()
    except Exception as e:
        return f"cross-encoder {c.settings.reranker_model!r} did not load: {e}"
    return None


def make_runners(
    search: ProductSearch, c: Components, collection: str, opts: Options
) -> tuple[dict[str, Runner], dict[str, str], dict[str, float]]:
    """The runnable modes, the skipped ones with the reason, and per mode its setup seconds."""
    runners: dict[str, Runner] = {}
    skipped: dict[str, str] = {}
    setup: dict[str, float] = {}
    for mode in opts.modes:
        if mode == BASELINE:
            runners[mode], setup[mode] = langchain_runner(c, collection, opts)
        elif mode == "hybrid+rerank" and (reason := reranker_skip_reason(c)) is not None:
            log.warning("skipping hybrid+rerank: %s", reason)
            skipped[mode] = reason
        else:
            runners[mode] = search.runner(mode)
    return runners, skipped, setup


def prepare(c: Components, collection: str) -> dict[str, float]:
    """Load the model and what BM25 reads of the collection (its term statistics) before any clock runs."""
    t0 = time.perf_counter()
    c.embedder.warm_up()
    t1 = time.perf_counter()
    c.corpus(collection)
    t2 = time.perf_counter()
    return {"embedder_load_seconds": t1 - t0, "bm25_load_seconds": t2 - t1}


# ------------------------------------------------------------------------------- measuring
def timed_run(
    runner: Runner, queries: Sequence[tuple[str, str]], progress: Progress, label: str, *, embedder: Embedder
) -> tuple[dict[str, list[str]], list[float]]:
    """Warm up on the first queries, then one timed call per query: rankings and latencies (ms).

    The embedder's query cache is cleared before the timed calls: every mode runs the same
    queries, and a mode must not be timed on vectors an earlier mode computed.
    """
    for i in range(WARMUP):
        runner(queries[i % len(queries)][1])
    embedder.clear_query_cache()
    task = progress.add_task(label, total=len(queries))
    run: dict[str, list[str]] = {}
    ms: list[float] = []
    for qid, text in queries:
        t0 = time.perf_counter()
        run[qid] = runner(text)
        ms.append((time.perf_counter() - t0) * 1000)
        progress.advance(task)
    return run, ms


def mode_result(run: dict[str, list[str]], ms: list[float], ds: BeirDataset, load: float) -> dict[str, Any]:
    depth = [len(v) for v in run.values()]
    return {
        **evaluate(run, ds.qrels),
        "latency_ms": latency_stats(ms),
        "mean_documents_ranked": float(np.mean(depth)) if depth else 0.0,
        "loadavg_1m_after": load,
    }


def quality(
    runners: dict[str, Runner], queries: Sequence[tuple[str, str]], ds: BeirDataset, opts: Options, embedder: Embedder
) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    with progress_bar(opts.progress) as progress:
        for mode, runner in runners.items():
            run, ms = timed_run(runner, queries, progress, mode, embedder=embedder)
            results[mode] = mode_result(run, ms, ds, os.getloadavg()[0])
            if opts.runs is not None:
                write_run(opts.runs / f"{mode}.jsonl", run)
            log.info(
                "%s: nDCG@10 %.3f, p50 %.1f ms", mode, results[mode]["ndcg@10"], results[mode]["latency_ms"]["p50"]
            )
    base = results.get(BASELINE, {}).get("latency_ms", {}).get("p50")
    for r in results.values():
        r["p50_vs_langchain"] = ratio(r["latency_ms"]["p50"], base)
    return results


def write_run(path: Path, run: dict[str, list[str]]) -> None:
    """Rankings as ``rag search --batch`` lines (doc ids and ranks), one per query."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = (
        json.dumps({"query_id": q, "results": [{"doc_id": d, "rank": r} for r, d in enumerate(docs, 1)]})
        for q, docs in run.items()
    )
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def select_queries(ds: BeirDataset, limit: int | None) -> list[tuple[str, str]]:
    items = list(ds.queries.items())
    return items[:limit] if limit else items


# ------------------------------------------------------------------------------- scaling
def base_points(index: QdrantIndex, batch: int = 1024) -> Iterator[StoredPoint]:
    """Every point of the collection with its payload and vector."""
    offset: Any = None
    while True:
        points, offset = index.client.scroll(
            index.collection, limit=batch, offset=offset, with_payload=True, with_vectors=True
        )
        yield from points
        if offset is None:
            break


def replica(p: StoredPoint, copy: int) -> qe.Point:
    """Copy ``copy`` of a point: copy 0 is the point itself, later ones get new ids and doc ids."""
    payload = dict(p.payload or {})
    vector: Any = p.vector
    if copy == 0:
        return point(str(p.id), vector, payload)
    payload["doc_id"] = f"{payload.get('doc_id')}~{copy}"
    payload["chunk_id"] = f"{payload.get('chunk_id')}~{copy}"
    return point(str(uuid.uuid5(SCALE_NS, f"{p.id}\x00{copy}")), vector, payload)


def scaled(points: Sequence[StoredPoint], n: int) -> Iterator[qe.Point]:
    """The first ``n`` points of the source repeated as often as needed."""
    for i in range(n):
        yield replica(points[i % len(points)], i // len(points))


def scaled_is_current(index: QdrantIndex, n: int, base_version: int) -> bool:
    if not index.exists():
        return False
    meta = index.metadata()
    return meta.get("synthetic_size") == n and meta.get("synthetic_base_version") == base_version and index.count() == n


def write_scaled(index: QdrantIndex, points: Sequence[StoredPoint], n: int, *, progress: bool) -> None:
    batch: list[qe.Point] = []
    with progress_bar(progress) as bar:
        task = bar.add_task(f"writing {n} chunks", total=n)
        for p in scaled(points, n):
            batch.append(p)
            if len(batch) == 1024:
                index.client.upsert(index.collection, points=batch, wait=True)
                bar.advance(task, len(batch))
                batch = []
        if batch:
            index.client.upsert(index.collection, points=batch, wait=True)
            bar.advance(task, len(batch))


def build_scaled_store(base: Components, collection: str, n: int, store: Path, opts: Options) -> Settings:
    """A store of ``n`` chunks copied from the base collection (no re-embedding), reused when current."""
    settings = make_settings(store, collection)
    src = base.index(collection)
    meta = src.metadata()
    base_version = int(meta.get("version", 0))
    index = QdrantIndex(collection=collection, path=settings.qdrant_path)
    try:
        if scaled_is_current(index, n, base_version):
            log.info("reusing the %d-chunk store at %s", n, store)
            return settings
        if index.exists():
            index.drop()
        points = list(base_points(src))
        log.info("building a %d-chunk store at %s from %d chunks", n, store, len(points))
        index.ensure(embedding_model=str(meta["embedding_model"]), dim=int(meta["dim"]))
        write_scaled(index, points, n, progress=opts.progress)
        index.optimize()
        # a new version makes every BM25 cache of this collection stale
        index.bump_version(synthetic_size=n, synthetic_base_version=base_version)
    finally:
        index.close()
    return settings


def scaling_at(
    base: Components, collection: str, n: int, queries: Sequence[tuple[str, str]], opts: Options
) -> dict[str, Any]:
    settings = build_scaled_store(base, collection, n, opts.store / f"scale-{n}", opts)
    c = Components(settings, embedder=base.embedder)
    search = ProductSearch(c, collection, opts)
    try:
        loads = prepare(c, collection)
        chunks = c.index(collection).count()
        runners, _, setup = make_runners(search, c, collection, opts)
        latency: dict[str, dict[str, float]] = {}
        with progress_bar(opts.progress) as progress:
            for mode, runner in runners.items():
                _, ms = timed_run(runner, queries, progress, f"{mode} @ {n}", embedder=c.embedder)
                latency[mode] = {**latency_stats(ms), "loadavg_1m_after": os.getloadavg()[0]}
    finally:
        search.close()
        c.close()
    log.info("scale %d: %s", n, {m: round(v["p50"], 1) for m, v in latency.items()})
    return {"chunks": chunks, "setup_seconds": {**loads, **setup}, "latency_ms": latency}


def scaling(base: Components, collection: str, ds: BeirDataset, opts: Options) -> dict[str, Any]:
    queries = select_queries(ds, opts.scaling_queries)
    sizes = {str(n): scaling_at(base, collection, n, queries, opts) for n in opts.scaling_sizes}
    lo, hi = str(min(opts.scaling_sizes)), str(max(opts.scaling_sizes))
    growth = {
        mode: ratio(sizes[hi]["latency_ms"][mode]["p50"], sizes[lo]["latency_ms"][mode]["p50"])
        for mode in sizes[hi]["latency_ms"]
    }
    return {
        "queries": len(queries),
        "sizes": sizes,
        "p50_growth": {"from": int(lo), "to": int(hi), "by_mode": growth},
        "note": "Synthetic collections: the ingested chunks repeated with new ids and perturbed doc ids "
        "(vectors copied, nothing re-embedded), in the embedded store of QDRANT_ENGINE (Qdrant Edge, "
        "HNSW, unless set to local: qdrant-client local mode, brute force, linear in the collection).",
    }


# ------------------------------------------------------------------------------- driver
def notes(opts: Options) -> list[str]:
    return [
        "bm25, dense, hybrid: the compiled graph in search mode, ranked as `rag search --batch -k K` ranks "
        "(each retriever asked for max(candidates, 5*k) chunks; documents at their best chunk, so a ranking "
        f"can be shorter than k={opts.k}: see mean_documents_ranked).",
        "Latency is per query after 5 warm-up queries, the embedder's query cache cleared before each timed "
        "pass: a whole search run for the product's modes, the retriever call for langchain.",
        "langchain: EnsembleRetriever(weights=[0.5, 0.5], c=60, id_key='_id') over BM25Retriever "
        "(default preprocessing: str.split) and QdrantVectorStore on the same collection and embedder.",
        "The embedded store's engine is QDRANT_ENGINE's (Qdrant Edge: HNSW with ef at least 4x the limit).",
        "loadavg_1m_after: the 1-minute load average after each timed pass. This process alone keeps it "
        "near 2 (torch and BLAS use 2 threads); clearly more means other work shared the CPUs and the "
        "latencies of that pass are inflated.",
    ]


def run(opts: Options) -> dict[str, Any]:
    ds = load_beir(opts.dataset, opts.split)
    collection = opts.collection
    c = Components(make_settings(opts.store, collection))
    search = ProductSearch(c, collection, opts)
    try:
        ingested = ingest(c, opts.dataset / "corpus.jsonl", progress=opts.progress)
        loads = prepare(c, collection)
        queries = select_queries(ds, opts.limit_queries)
        runners, skipped, setup = make_runners(search, c, collection, opts)
        log.info("%d queries, modes %s", len(queries), ", ".join(runners))
        report: dict[str, Any] = {
            "dataset": ds.name,
            "split": opts.split,
            "queries": len(queries),
            "corpus_documents": len(ds.corpus),
            "chunks": c.index(collection).count(),
            "embedder": c.embedder.model_id,
            "store": str(opts.store),
            "params": params(opts),
            "machine": {"cpus": os.cpu_count()},
            "ingest": ingested,
            "setup_seconds": {**loads, **setup},
            "modes": quality(runners, queries, ds, opts, c.embedder),
            "skipped": skipped,
            "notes": notes(opts),
        }
        if opts.scaling:
            report["scaling"] = scaling(c, collection, ds, opts)
        report["machine"]["loadavg_1m_at_end"] = os.getloadavg()[0]
        return report
    finally:
        search.close()
        c.close()


def params(opts: Options) -> dict[str, Any]:
    return {
        "k": opts.k,
        "candidates": opts.candidates,
        "rrf_k": opts.rrf_k,
        "fusion": opts.fusion,
        "dense_weight": opts.dense_weight,
        "bm25_weight": opts.bm25_weight,
        "rerank_candidates": opts.rerank_candidates,
        "limit_queries": opts.limit_queries,
        "warmup_queries": WARMUP,
    }


def fmt(x: float | None, spec: str = ".3f") -> str:
    return "-" if x is None else format(x, spec)


def fmt_ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}" if x < 10 else f"{x:.1f}"


def render_quality(report: dict[str, Any], console: Console) -> None:
    t = Table(
        title=f"Retrieval on {report['dataset']} ({report['split']}, {report['queries']} queries, "
        f"{report['chunks']} chunks, {report['embedder']})"
    )
    for col in ("mode", "nDCG@10", "R@5", "R@10", "R@100", "MRR@10", "p50 ms", "p95 ms", "p50 / langchain"):
        t.add_column(col, justify="left" if col == "mode" else "right")
    for mode, r in report["modes"].items():
        lat = r["latency_ms"]
        t.add_row(
            mode,
            *(fmt(r[m]) for m in ("ndcg@10", "recall@5", "recall@10", "recall@100", "mrr@10")),
            fmt_ms(lat["p50"]),
            fmt_ms(lat["p95"]),
            fmt(r["p50_vs_langchain"], ".3g"),
        )
    console.print(t)
    for mode, reason in report["skipped"].items():
        console.print(f"[yellow]skipped[/] {mode}: {reason}", highlight=False)


def render_scaling(sc: dict[str, Any], console: Console) -> None:
    sizes = list(sc["sizes"])
    t = Table(title=f"Latency vs collection size ({sc['queries']} queries; local mode = brute-force dense)")
    t.add_column("mode")
    for n in sizes:
        chunks = sc["sizes"][n]["chunks"]
        t.add_column(f"p50 ms @{chunks}", justify="right")
        t.add_column(f"p95 ms @{chunks}", justify="right")
    g = sc["p50_growth"]
    t.add_column(f"p50 {g['to']} / {g['from']}", justify="right")
    for mode, growth in g["by_mode"].items():
        cells = []
        for n in sizes:
            lat = sc["sizes"][n]["latency_ms"][mode]
            cells += [fmt_ms(lat["p50"]), fmt_ms(lat["p95"])]
        t.add_row(mode, *cells, fmt(growth, ".2f"))
    console.print(t)


def parse_modes(raw: str) -> tuple[str, ...]:
    modes = tuple(m.strip() for m in raw.split(",") if m.strip())
    unknown = [m for m in modes if m not in ALL_MODES]
    if unknown or not modes:
        raise argparse.ArgumentTypeError(f"unknown modes {unknown}; choose from {', '.join(ALL_MODES)}")
    return modes


def parse_sizes(raw: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(x) for x in raw.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes must be integers, got {raw!r}") from None
    if len(sizes) < 2 or min(sizes) < 1:
        raise argparse.ArgumentTypeError("give at least two positive sizes")
    return sizes


def default_report(dataset: Path, limit: int | None, scaling: bool, fusion_method: str = fusion.DEFAULT) -> Path:
    """evals/reports/retrieval-<dataset>[-<fusion>][-q<N>][-scaling].json: partial runs do not overwrite full ones."""
    name = f"retrieval-{collection_name(dataset)}" + ("" if fusion_method == fusion.DEFAULT else f"-{fusion_method}")
    if limit:
        name += f"-q{limit}"
    if scaling:
        name += "-scaling"
    return Path("evals/reports") / f"{name}.json"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dataset", type=Path, help="BEIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv")
    p.add_argument("--split", default="test")
    p.add_argument("--modes", type=parse_modes, default=ALL_MODES, help=f"comma-separated: {','.join(ALL_MODES)}")
    p.add_argument("--k", type=int, default=100, help="depth of each document ranking")
    p.add_argument(
        "--candidates", type=int, default=Context.candidates, help="least chunks each retriever returns (Context)"
    )
    p.add_argument("--rrf-k", type=float, default=60.0)
    p.add_argument(
        "--fusion", choices=list(fusion.METHODS), default=fusion.DEFAULT, help="how hybrid modes join the lists"
    )
    p.add_argument("--dense-weight", type=float, default=1.0)
    p.add_argument("--bm25-weight", type=float, default=1.0)
    p.add_argument("--rerank-candidates", type=int, default=30, help="fused chunks the cross-encoder rescores")
    p.add_argument("--limit-queries", type=int, default=None, help="only the first N judged queries")
    p.add_argument("--store", type=Path, default=None, help="embedded store folder (default .rag/bench/<dataset>)")
    p.add_argument("--report", type=Path, default=None, help="JSON report (default evals/reports/retrieval-<dataset>…)")
    p.add_argument("--scaling", action="store_true", help="also measure latency at about 10k and 100k chunks")
    p.add_argument("--scaling-sizes", type=parse_sizes, default=(10_000, 100_000))
    p.add_argument("--scaling-queries", type=int, default=100)
    p.add_argument("--runs", type=Path, default=None, help="write each mode's rankings to RUNS/<mode>.jsonl")
    p.add_argument("--no-progress", dest="progress", action="store_false")
    return p


def parse_args(argv: list[str] | None) -> Options:
    p = build_parser()
    a = p.parse_args(argv)
    for f in ("corpus.jsonl", "queries.jsonl"):
        if not (a.dataset / f).is_file():
            p.error(f"{a.dataset / f} not found: not a BEIR folder")
    if a.k < 1 or a.candidates < 1:
        p.error("--k and --candidates must be positive")
    name = collection_name(a.dataset)
    return Options(
        dataset=a.dataset,
        split=a.split,
        modes=a.modes,
        k=a.k,
        candidates=a.candidates,
        rrf_k=a.rrf_k,
        fusion=a.fusion,
        dense_weight=a.dense_weight,
        bm25_weight=a.bm25_weight,
        rerank_candidates=a.rerank_candidates,
        limit_queries=a.limit_queries,
        store=a.store or Path(".rag/bench") / name,
        report=a.report or default_report(a.dataset, a.limit_queries, a.scaling, a.fusion),
        scaling=a.scaling,
        scaling_sizes=a.scaling_sizes,
        scaling_queries=a.scaling_queries,
        runs=a.runs,
        progress=a.progress,
    )


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    log.setLevel(logging.INFO)
    logging.getLogger("evals.langchain_baseline").setLevel(logging.INFO)
    opts = parse_args(argv)
    report = run(opts)
    console = Console()
    render_quality(report, console)
    if "scaling" in report:
        render_scaling(report["scaling"], console)
    opts.report.parent.mkdir(parents=True, exist_ok=True)
    opts.report.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    log.info("report written to %s", opts.report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
