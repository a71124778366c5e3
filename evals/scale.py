"""Scale benchmark: the embedded engines at 10k, 100k (and 1M) chunks, today's path as the baseline.

    python -m evals.scale [--sizes 10000,100000] [--engines local,edge] [--queries 200]
                          [--report evals/reports/scale.json] [--work DIR]

Chunks are synthetic copies of a real store's chunks (``QDRANT_PATH`` / ``COLLECTION``: ingest
something first, e.g. ``rag ingest ../shared/data/jsquad/corpus.jsonl``): each copy keeps a real
chunk's text and payload, its vector moved by a little noise (so the graph index is not built on
exact duplicates), and a ``vault`` of ten (a filter keeps a tenth). Per engine and size, a fresh
process opens the store and measures: open time, resident memory, hybrid search p50/p95 without
and with the filter (dense top 50 + BM25 top 50, fused), and re-ingesting a 10-document delta
(about 20 chunks): the store's writes and its lexical index's update, until a reader sees them
(embedding the delta costs the same on both engines and is left out).

Engines:

* ``local`` — today's path (the baseline): qdrant-client local mode (the whole collection is read
  into memory on open; brute-force search; filters evaluated in Python) and the in-memory BM25
  index (``evals/bm25_memory.py``), loaded from its pickle on open and rebuilt whole after a
  write, as ingestion does.
* ``edge`` — Qdrant Edge (``qdrant-edge-py``), Qdrant's engine in-process, as the default store
  configures it (``components/stores/edge.py``): HNSW for the dense vectors, BM25 term weights as
  sparse vectors with the engine's IDF, the product's payload indexes (``INDEXED``), the sparse and
  payload indexes memory-mapped; fusion inside the engine (RRF).

A size whose build is estimated past ``--max-minutes`` is skipped and reported as such.
"""

from __future__ import annotations

import argparse
import json
import logging
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from evals.artifacts import save_report
from evals.process import rss_mb

log = logging.getLogger(__name__)

DENSE, SPARSE = "dense", "bm25"
VAULTS = 10
FILTER_VAULT = "v3"
LIMIT = 50
DELTA_DOCS = 10
K1, B = 1.5, 0.75
NOISE = 0.02
BATCH = 1000
SEED = 18


# ------------------------------------------------------------------ the source chunks


@dataclass
class Source:
    """A real store's chunks: vectors, payloads and their BM25 tokens."""

    vectors: np.ndarray
    payloads: list[dict[str, Any]]
    tokens: list[list[str]]

    @property
    def size(self) -> int:
        return len(self.payloads)


def read_source() -> Source:
    """Every chunk of the configured store, with its vector and its BM25 tokens."""
    from components.factory import Components
    from components.settings import Settings
    from components.stores.lexical import search_text

    c = Components(Settings())
    index = c.index()
    vectors: list[list[float]] = []
    payloads: list[dict[str, Any]] = []
    offset = None
    while True:
        points, offset = index.client.scroll(
            index.collection, limit=1000, offset=offset, with_payload=True, with_vectors=[DENSE]
        )
        for p in points:
            vec = p.vector[DENSE] if isinstance(p.vector, dict) else p.vector
            vectors.append(list(vec))  # type: ignore[arg-type]
            payloads.append(dict(p.payload or {}))
        if offset is None:
            break
    if not payloads:
        raise SystemExit(f"the store at {index.location} holds no chunks: run `rag ingest` first")
    tokens = [c.tokenizer(search_text(p)) for p in payloads]
    c.close()
    return Source(np.asarray(vectors, dtype=np.float32), payloads, tokens)


def copies(
    src: Source, n: int, *, start: int = 0, seed: int = SEED
) -> Iterator[tuple[int, np.ndarray, dict[str, Any]]]:
    """Chunks ``start``..``start + n``: copy ``i`` of source chunk ``i % size``, in vault ``i % 10``."""
    rng = np.random.default_rng(seed + start)
    for i in range(start, start + n):
        j = i % src.size
        v = src.vectors[j] + np.asarray(rng.normal(0.0, NOISE, size=src.vectors.shape[1]), dtype=np.float32)
        v /= np.linalg.norm(v)
        payload = dict(src.payloads[j])
        payload["doc_id"] = f"{payload.get('doc_id')}~{i // src.size}"
        payload["vault"] = f"v{i % VAULTS}"
        payload["source_index"] = j
        yield i, v, payload


def term_key(token: str) -> int:
    """A token's dimension in the sparse vectors (stable across processes, unlike ``hash``)."""
    return zlib.crc32(token.encode("utf-8")) & 0x7FFFFFFF


def sparse_of(tokens: Sequence[str], avgdl: float) -> tuple[list[int], list[float]]:
    """BM25's per-chunk term weights (the IDF is the engine's): tf·(k1+1) / (tf + k1·(1-b+b·len/avgdl))."""
    tf: dict[int, int] = {}
    for t in tokens:
        key = term_key(t)
        tf[key] = tf.get(key, 0) + 1
    norm = K1 * (1 - B + B * len(tokens) / avgdl)
    keys = sorted(tf)
    return keys, [tf[k] * (K1 + 1) / (tf[k] + norm) for k in keys]


def query_terms(tokens: Sequence[str]) -> tuple[list[int], list[float]]:
    """A query as a sparse vector: each term with how often the query holds it (as BM25 sums)."""
    counts: dict[int, float] = {}
    for t in tokens:
        key = term_key(t)
        counts[key] = counts.get(key, 0.0) + 1.0
    keys = sorted(counts)
    return keys, [counts[k] for k in keys]


def workload(src: Source, n: int, seed: int = SEED) -> list[tuple[list[float], list[str]]]:
    """``n`` queries: a chunk's vector moved by noise, and eight of its words."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        j = int(rng.integers(src.size))
        v = src.vectors[j] + np.asarray(rng.normal(0.0, NOISE * 2, size=src.vectors.shape[1]), dtype=np.float32)
        words = src.tokens[j]
        k = int(rng.integers(max(1, len(words) - 8) + 1))
        out.append(((v / np.linalg.norm(v)).tolist(), list(words[k : k + 8]) or ["x"]))
    return out


# ------------------------------------------------------------------ engines


class Engine:
    """One embedded engine: build a store of ``n`` chunks, then (in a fresh process) measure it."""

    name = ""

    def build(self, folder: Path, src: Source, n: int, progress: Callable[[int], None]) -> None:
        raise NotImplementedError

    def measure(
        self, folder: Path, src: Source, n: int, queries: list[tuple[list[float], list[str]]]
    ) -> dict[str, Any]:
        raise NotImplementedError


class LocalEngine(Engine):
    """Today's path: qdrant-client local mode + the in-memory BM25 index and its pickle."""

    name = "local"

    def _client(self, folder: Path) -> Any:
        from qdrant_client import QdrantClient

        return QdrantClient(path=str(folder / "qdrant"))

    def build(self, folder: Path, src: Source, n: int, progress: Callable[[int], None]) -> None:
        from qdrant_client import models

        client = self._client(folder)
        client.create_collection(
            "scale",
            vectors_config={DENSE: models.VectorParams(size=src.vectors.shape[1], distance=models.Distance.DOT)},
        )
        batch: list[Any] = []
        for i, v, payload in copies(src, n):
            batch.append(models.PointStruct(id=i, vector={DENSE: v.tolist()}, payload=payload))
            if len(batch) == BATCH:
                client.upsert("scale", batch, wait=True)
                progress(len(batch))
                batch = []
        if batch:
            client.upsert("scale", batch, wait=True)
            progress(len(batch))
        client.close()
        self._save_bm25(folder, src, n)

    def _save_bm25(self, folder: Path, src: Source, n: int) -> float:
        from evals.bm25_memory import BM25Index, save

        t0 = time.perf_counter()
        ids = [str(i) for i in range(n)]
        payloads = [{"vault": f"v{i % VAULTS}", "doc_id": str(i)} for i in range(n)]
        tokens = [src.tokens[i % src.size] for i in range(n)]
        save(BM25Index(ids, [p["doc_id"] for p in payloads], tokens, payloads=payloads), folder / "bm25.pkl")
        return time.perf_counter() - t0

    def measure(
        self, folder: Path, src: Source, n: int, queries: list[tuple[list[float], list[str]]]
    ) -> dict[str, Any]:
        from qdrant_client import models

        from components.retrieval.fusion import rrf
        from evals.bm25_memory import read as read_bm25

        before = rss_mb()
        t0 = time.perf_counter()
        client = self._client(folder)
        client.get_collection("scale")
        bm25 = read_bm25(folder / "bm25.pkl")
        if bm25 is None:
            raise RuntimeError(f"{folder / 'bm25.pkl'} holds no BM25 index: build the store again")
        opened = time.perf_counter() - t0
        flt = models.Filter(must=[models.FieldCondition(key="vault", match=models.MatchValue(value=FILTER_VAULT))])

        def hybrid(vec: list[float], words: list[str], filtered: bool) -> list[str]:
            dense = client.query_points(
                "scale", query=vec, using=DENSE, limit=LIMIT, query_filter=flt if filtered else None, with_payload=True
            ).points
            # today's BM25 filter: each payload tested in Python, as the in-memory index's caller did
            allowed = (
                np.fromiter((p.get("vault") == FILTER_VAULT for p in bm25.payloads), bool, bm25.size)
                if filtered
                else None
            )
            lexical = bm25.search(words, limit=LIMIT, allowed=allowed)
            fused = rrf({"dense": [str(p.id) for p in dense], "bm25": [h.point_id for h in lexical]})
            return [pid for pid, _ in fused[:LIMIT]]

        result = {"open_s": opened, **_latencies(hybrid, queries)}
        result["rss_mb"] = rss_mb() - before  # what the open store and its searches hold
        # a 10-document delta: its chunks upserted, then BM25 rebuilt whole and saved, as ingestion does
        delta = list(copies(src, DELTA_DOCS * 2, start=n))
        t0 = time.perf_counter()
        client.upsert(
            "scale",
            [models.PointStruct(id=i, vector={DENSE: v.tolist()}, payload=p) for i, v, p in delta],
            wait=True,
        )
        rebuild = self._save_bm25(folder, src, n + len(delta))
        result["delta_s"] = time.perf_counter() - t0
        result["delta_bm25_rebuild_s"] = rebuild
        client.close()
        return result


class EdgeEngine(Engine):
    """Qdrant Edge: HNSW dense, BM25 sparse vectors with the engine's IDF, payload index, fusion inside."""

    name = "edge"

    def build(self, folder: Path, src: Source, n: int, progress: Callable[[int], None]) -> None:
        import qdrant_edge as qe

        avgdl = float(np.mean([len(t) for t in src.tokens])) or 1.0
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "avgdl").write_text(str(avgdl))
        from components.stores.edge_models import SparseSpec, index_params, sparse_params
        from components.stores.points import INDEXED

        config = qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=src.vectors.shape[1], distance=qe.Distance.Dot)},
            sparse_vectors={SPARSE: sparse_params(SparseSpec("idf"))},
        )
        shard = qe.EdgeShard.create(str(folder / "edge"), config)
        for field, kind in INDEXED.items():  # the product's payload indexes, placed as it places them
            shard.update(qe.UpdateOperation.create_field_index(field, index_params(kind)))
        sparse = [sparse_of(t, avgdl) for t in src.tokens]
        batch: list[Any] = []
        for i, v, payload in copies(src, n):
            keys, values = sparse[i % src.size]
            vector = {DENSE: v.tolist(), SPARSE: qe.SparseVector(indices=keys, values=values)}
            batch.append(qe.Point(id=i, vector=vector, payload=payload))
            if len(batch) == BATCH:
                shard.update(qe.UpdateOperation.upsert_points(batch))
                progress(len(batch))
                batch = []
        if batch:
            shard.update(qe.UpdateOperation.upsert_points(batch))
            progress(len(batch))
        shard.optimize()  # builds the HNSW graph and the indexes, as a background optimizer would
        shard.flush()
        shard.close()

    def measure(
        self, folder: Path, src: Source, n: int, queries: list[tuple[list[float], list[str]]]
    ) -> dict[str, Any]:
        import qdrant_edge as qe

        avgdl = float((folder / "avgdl").read_text())
        before = rss_mb()
        t0 = time.perf_counter()
        shard = qe.EdgeShard.load(str(folder / "edge"))
        opened = time.perf_counter() - t0
        flt = qe.Filter(must=[qe.FieldCondition(key="vault", match=qe.MatchValue(FILTER_VAULT))])

        def hybrid(vec: list[float], words: list[str], filtered: bool) -> list[str]:
            keys, values = query_terms(words)
            f = flt if filtered else None
            request = qe.QueryRequest(
                limit=LIMIT,
                prefetches=[
                    qe.Prefetch(limit=LIMIT, query=qe.Query.Nearest(vec, using=DENSE), filter=f),
                    qe.Prefetch(
                        limit=LIMIT,
                        query=qe.Query.Nearest(qe.SparseVector(indices=keys, values=values), using=SPARSE),
                        filter=f,
                    ),
                ],
                query=qe.Fusion.Rrf(k=60),  # type: ignore[arg-type]  # the stub lists Fusion, not its kinds
                with_payload=True,
            )
            return [str(p.id) for p in shard.query(request)]

        result = {"open_s": opened, **_latencies(hybrid, queries)}
        result["rss_mb"] = rss_mb() - before  # what the open store and its searches hold
        delta = list(copies(src, DELTA_DOCS * 2, start=n))
        t0 = time.perf_counter()
        points = []
        for i, v, p in delta:
            keys, values = sparse_of(src.tokens[i % src.size], avgdl)
            points.append(
                qe.Point(
                    id=i, vector={DENSE: v.tolist(), SPARSE: qe.SparseVector(indices=keys, values=values)}, payload=p
                )
            )
        shard.update(qe.UpdateOperation.upsert_points(points))
        shard.flush()
        result["delta_s"] = time.perf_counter() - t0
        shard.close()
        return result


ENGINES: dict[str, Callable[[], Engine]] = {"local": LocalEngine, "edge": EdgeEngine}


def _latencies(
    hybrid: Callable[[list[float], list[str], bool], list[str]], queries: list[tuple[list[float], list[str]]]
) -> dict[str, float]:
    out: dict[str, float] = {}
    for filtered in (False, True):
        hybrid(*queries[0], filtered)  # first call pays lazy setup
        times = []
        for vec, words in queries:
            t0 = time.perf_counter()
            hybrid(vec, words, filtered)
            times.append((time.perf_counter() - t0) * 1000)
        key = "filtered" if filtered else "plain"
        out[f"{key}_p50_ms"] = statistics.median(times)
        out[f"{key}_p95_ms"] = float(np.percentile(times, 95))
    return out


# ------------------------------------------------------------------ the run


def _measure_in_child(engine: str, folder: Path, n: int, queries: int) -> dict[str, Any]:
    """Open and measure in a fresh process, so open time and memory are the store's alone."""
    proc = subprocess.run(
        [sys.executable, "-m", "evals.scale", "--child", engine, str(folder), str(n), str(queries)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{engine} at {n}: {proc.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def _child(engine: str, folder: Path, n: int, queries: int) -> None:
    src = pickle.loads((folder.parent / "source.pkl").read_bytes())
    result = ENGINES[engine]().measure(folder, src, n, workload(src, queries))
    print(json.dumps(result))


def run(
    sizes: list[int], engines: list[str], queries: int, work: Path, max_minutes: float, console: Console
) -> dict[str, Any]:
    src = read_source()
    work.mkdir(parents=True, exist_ok=True)
    (work / "source.pkl").write_bytes(pickle.dumps(src))
    console.print(f"source: {src.size} chunks of a real store, {src.vectors.shape[1]} dimensions")
    rows: list[dict[str, Any]] = []
    rate: dict[str, float] = {}  # chunks per second while building, per engine
    with Progress(console=console) as bar:
        for n in sizes:
            for engine in engines:
                estimate = n / rate[engine] / 60 if engine in rate else 0.0
                if estimate > max_minutes:
                    rows.append({"engine": engine, "size": n, "skipped": f"build estimated at {estimate:.0f} min"})
                    continue
                folder = work / f"{engine}-{n}"
                task = bar.add_task(f"{engine} {n:,}", total=n)
                t0 = time.perf_counter()
                ENGINES[engine]().build(folder, src, n, lambda k, task=task: bar.advance(task, k))  # type: ignore[misc]
                built = time.perf_counter() - t0
                rate[engine] = n / built
                result = _measure_in_child(engine, folder, n, queries)
                rows.append({"engine": engine, "size": n, "build_s": built, **result})
    return {
        "source_chunks": src.size,
        "queries": queries,
        "filter": f"vault = {FILTER_VAULT} (1 in {VAULTS})",
        "rows": rows,
    }


def table(report: dict[str, Any]) -> Table:
    t = Table(title="hybrid search (dense 50 + BM25 50, fused), open, memory, a 10-document delta")
    for col in (
        "engine",
        "chunks",
        "build s",
        "open s",
        "store MB",
        "p50 ms",
        "p95 ms",
        "filtered p50",
        "filtered p95",
        "delta s",
    ):
        t.add_column(col, justify="right")
    for r in report["rows"]:
        if "skipped" in r:
            t.add_row(r["engine"], f"{r['size']:,}", r["skipped"], *[""] * 7)
            continue
        t.add_row(
            r["engine"],
            f"{r['size']:,}",
            f"{r['build_s']:.1f}",
            f"{r['open_s']:.2f}",
            f"{r['rss_mb']:.0f}",
            f"{r['plain_p50_ms']:.1f}",
            f"{r['plain_p95_ms']:.1f}",
            f"{r['filtered_p50_ms']:.1f}",
            f"{r['filtered_p95_ms']:.1f}",
            f"{r['delta_s']:.2f}",
        )
    return t


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    for i, engine in enumerate(sorted({r["engine"] for r in report["rows"]})):
        rows = [r for r in report["rows"] if r["engine"] == engine and "skipped" not in r]
        sizes = [r["size"] for r in rows]
        color = f"C{i}"
        axes[0].plot(sizes, [r["filtered_p50_ms"] for r in rows], marker="o", color=color, label=f"{engine} filtered")
        axes[0].plot(
            sizes, [r["plain_p50_ms"] for r in rows], marker="x", linestyle="--", color=color, label=f"{engine} plain"
        )
        axes[1].plot(sizes, [r["open_s"] for r in rows], marker="o", color=color, label=engine)
        axes[2].plot(sizes, [r["delta_s"] for r in rows], marker="o", color=color, label=engine)
    for ax, title in zip(axes, ("hybrid p50 (ms)", "open (s)", "10-document delta (s)"), strict=True):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("chunks")
        ax.set_title(title)
        ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="10000,100000", help="comma-separated chunk counts (1000000 for a million)")
    p.add_argument("--engines", default="local,edge", help="comma-separated: " + ", ".join(ENGINES))
    p.add_argument("--queries", type=int, default=200, help="queries per measurement")
    p.add_argument("--report", type=Path, default=Path("evals/reports/scale.json"))
    p.add_argument("--work", type=Path, default=None, help="folder for the stores (default: a temporary one)")
    p.add_argument("--max-minutes", type=float, default=20.0, help="skip a size whose build would take longer")
    p.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        engine, folder, n, queries = args.child
        _child(engine, Path(folder), int(n), int(queries))
        return 0
    logging.basicConfig(level=logging.WARNING)
    console = Console()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    engines = [e for e in args.engines.split(",") if e]
    unknown = set(engines) - set(ENGINES)
    if unknown:
        p.error(f"unknown engine(s) {sorted(unknown)}: choose from {', '.join(ENGINES)}")
    with tempfile.TemporaryDirectory(prefix="rag-scale-") as tmp:
        report = run(sizes, engines, args.queries, args.work or Path(tmp), args.max_minutes, console)
    console.print(table(report))
    png = save_report(report, args.report, plot)
    console.print(f"report: {args.report} · plot: {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
