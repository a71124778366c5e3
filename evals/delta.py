"""Re-ingesting a 10-document edit through the product's own path, end to end, at growing store sizes.

    python -m evals.delta --qdrant-path STORE/qdrant [--sizes 0,100000] [--docs 10]
                          [--report evals/reports/delta.json] [--work DIR]

``evals.scale`` measures the engines' writes alone; this runs what a user runs: a fresh process
ingests a folder holding ``--docs`` edited documents (``python -m cli ingest DIR``, the default
pipeline: parse, chunk, embed, write, prune, optimize, term statistics, sentence vectors) into a
store of each size, and reports the process's wall time and each ingestion node's share (the
model's load falls in ``embed_chunks``); then the same documents, edited again, through a
running `rag serve` (``rag ingest`` forwards to it), as the wall time of the command.

The stores are copies of a real one (the chunk collection of ``--qdrant-path``, e.g. the
SciFact store, with its vectors, BM25 weights and sentence vectors): copy *k* of each document is
the same document under the id ``<id>~k``, so a size is reached without embedding anything.
Size 0 stands for the source's own size. The edited documents are ten of copy 0, each given a
new first sentence, so each is rewritten whole and its sentences reconciled. The smallest size
is the baseline: the ratio of a size's wall time to it shows what the collection's size costs a
delta (the issue's target: 100k chunks in ≤ 5 s end to end).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from evals.artifacts import save_report
from evals.process import ServeProcess, store_env

log = logging.getLogger(__name__)

DEFAULT_REPORT = Path("evals/reports/delta.json")
READY_TIMEOUT_S = 600
COPY = "~"
"""Separates a copied document's id from its copy number."""


def _copy_payload(pl: dict[str, Any], k: int) -> dict[str, Any]:
    if k == 0:
        return pl
    out = dict(pl)
    for key in ("doc_id", "chunk_id", "parent_id"):
        if out.get(key):
            out[key] = f"{out[key]}{COPY}{k}"
    return out


def build(source: Path, target: Path, size: int, progress: Callable[[int, int], None]) -> dict[str, Any]:
    """A store at ``target`` holding whole copies of ``source``'s documents up to ``size`` chunks
    (0: the source's own), its sentence vectors listing every copy, its term statistics counted."""
    from components.factory import Components
    from components.settings import Settings
    from components.stores.lexical import SPARSE, sparse_config
    from components.stores.points import DENSE
    from components.stores.qdrant import QdrantIndex
    from components.stores.sentences import REFS, REFS_META, SPLITTER, SUFFIX, section_sentences

    src = QdrantIndex(collection="rag", path=source)
    meta = src.metadata()
    by_doc: dict[str, list[Any]] = defaultdict(list)
    for p in src.scroll(fields=True, vectors=True):
        by_doc[str((p.payload or {})["doc_id"])].append(p)
    for points in by_doc.values():
        points.sort(key=lambda p: int(p.payload["chunk_index"]))
    chunks = sum(len(v) for v in by_doc.values())
    size = size or chunks
    settings = Settings(qdrant_path=target / "qdrant", data_dir=target / "data", _env_file=None)  # type: ignore[call-arg]
    c = Components(settings)
    dst = c.index()
    dst.ensure(embedding_model=str(meta["embedding_model"]), dim=int(meta["dim"]), sparse=sparse_config())
    dst.update_metadata(**{k: meta[k] for k in ("lexical",) if k in meta})
    copies: dict[str, list[str]] = defaultdict(list)  # source doc id -> its copies' ids
    written, k, batch = 0, 0, []
    while written < size:
        for doc, points in by_doc.items():
            if written >= size:
                break
            pls = [_copy_payload(dict(p.payload or {}), k) for p in points]
            batch.append((pls[0]["doc_id"], pls, [p.vector[DENSE] for p in points], [p.vector[SPARSE] for p in points]))
            copies[doc].append(str(pls[0]["doc_id"]))
            written += len(pls)
            if len(batch) >= 256:
                dst.write([b[:3] for b in batch], sparse=(SPARSE, [b[3] for b in batch]))
                batch = []
                progress(written, size)
        k += 1
    if batch:
        dst.write([b[:3] for b in batch], sparse=(SPARSE, [b[3] for b in batch]))
    progress(written, size)
    version = dst.bump_version()
    dst.optimize()
    # sentence vectors: each source sentence, listing every copy of the documents holding it
    s_src = QdrantIndex(collection="rag" + SUFFIX, path=source, client=src.client)  # one client per folder
    s_dst = c.index("rag" + SUFFIX)
    held = section_sentences(dict(p.payload or {}) for ps in by_doc.values() for p in ps)
    ids = list(held)
    for start in range(0, len(ids), 1024):
        part = ids[start : start + 1024]
        found = s_src.vectors(part)
        keep = [i for i in part if i in found]
        if not keep:
            continue
        s_dst.ensure(embedding_model=str(meta["embedding_model"]), dim=len(found[keep[0]]))
        docs = [sorted(d for doc in held[i][1] for d in copies.get(doc, [])) for i in keep]
        s_dst.upsert_vectors(keep, np.stack([found[i] for i in keep]), payloads=[{REFS: d} for d in docs])
    s_dst.optimize()
    s_dst.update_metadata(source_version=version, splitter=SPLITTER, **{REFS_META: True})
    c.corpus()  # the term statistics, as the ingestion that made the store would have left them
    c.close()
    src.close()
    return {"chunks": written, "documents": sum(len(v) for v in copies.values()), "source_chunks": chunks}


def delta_folder(source: Path, folder: Path, docs: int, opening: str) -> list[str]:
    """``docs`` documents of copy 0 as a BEIR file, each with ``opening`` as a new first sentence; their ids."""
    from components.stores.qdrant import QdrantIndex

    src = QdrantIndex(collection="rag", path=source)
    first: dict[str, dict[str, Any]] = {}
    for p in src.scroll(fields=["doc_id", "title", "text", "chunk_index"]):
        pl = dict(p.payload or {})
        if pl.get("chunk_index") == 0 and len(first) < docs:
            first[str(pl["doc_id"])] = pl
    src.close()
    folder.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"_id": d, "title": pl.get("title") or "", "text": f"{opening} {pl['text']}"})
        for d, pl in first.items()
    ]
    (folder / "delta.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return list(first)


CHILD = """
import asyncio, json, sys, time
t0 = time.perf_counter()
from components.factory import Components
from graph.ingest import build_ingest_graph
async def main():
    c = Components()
    graph = build_ingest_graph(c)
    nodes, last, out = {}, time.perf_counter(), {}
    async for chunk in graph.astream({"paths": [sys.argv[1]]}, stream_mode="updates"):
        now = time.perf_counter()
        for node, update in chunk.items():
            nodes[node] = nodes.get(node, 0.0) + now - last
            out.update(update or {})
        last = now
    c.close()
    print(json.dumps({"nodes": nodes, "written_documents": out.get("written_documents"),
                      "sentences_embedded": out.get("sentences_embedded"), "in_process_s": time.perf_counter() - t0}))
asyncio.run(main())
"""


def _env(store: Path) -> dict[str, str]:
    return store_env(store / "qdrant", store / "data")


def measure(store: Path, folder: Path) -> dict[str, Any]:
    """One fresh process ingesting ``folder`` into ``store``: its wall time and each node's seconds."""
    env = _env(store)
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder)], env=env, capture_output=True, text=True, check=True
    )
    wall = time.perf_counter() - t0
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    result["wall_s"] = wall
    return result


def measure_served(store: Path, folder: Path) -> dict[str, Any]:
    """``rag ingest FOLDER`` forwarded to a running `rag serve` (started first, not timed): the
    command's wall time, as a user at a terminal waits for it."""
    env = {**_env(store), "RAG_SERVER": "on"}
    server = ServeProcess(env)
    try:
        ready_s = server.wait_ready(READY_TIMEOUT_S)
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "cli", "ingest", str(folder), "--json"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        wall = time.perf_counter() - t0
    finally:
        server.stop()
    out = json.loads(proc.stdout)
    return {"wall_s": wall, "server_ready_s": ready_s, "written_documents": out.get("written_documents")}


def _progress(bar: Progress, what: str) -> Callable[[int, int], None]:
    task = bar.add_task(what, total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return update


def run(source: Path, sizes: list[int], docs: int, work: Path, console: Console) -> dict[str, Any]:
    rows = []
    for size in sizes:
        store = work / f"store-{size}"
        t0 = time.perf_counter()
        with Progress(console=console, transient=True) as bar:
            built = build(source, store, size, _progress(bar, f"copying the store to {size or 'its own size'} chunks"))
        console.print(
            f"{built['chunks']:,} chunks, {built['documents']:,} documents built in {time.perf_counter() - t0:.0f} s"
        )
        ids = delta_folder(source, work / f"delta-{size}", docs, "A revised opening sentence.")
        result = measure(store, work / f"delta-{size}")
        # the same ten documents edited again, the command forwarded to a running `rag serve`
        delta_folder(source, work / f"served-{size}", docs, "A second revision of the opening.")
        served = measure_served(store, work / f"served-{size}")
        for r in (result, served):
            if r.get("written_documents") != len(ids):
                raise RuntimeError(f"the delta wrote {r.get('written_documents')} documents, not {len(ids)}")
        rows.append(
            {
                "size": built["chunks"],
                "documents": built["documents"],
                "delta_documents": len(ids),
                **result,
                "served_wall_s": served["wall_s"],
                "server_ready_s": served["server_ready_s"],
            }
        )
    base = rows[0]["wall_s"]
    for r in rows:
        r["ratio_to_smallest"] = r["wall_s"] / base
    return {"source": str(source), "docs": docs, "rows": rows, "machine": {"cpus": os.cpu_count()}}


#: ingestion node -> its column in the table
COLUMNS = {
    "parse_documents": "parse",
    "embed_chunks": "embed (+model load)",
    "upsert_chunks": "write",
    "optimize_index": "optimize",
    "refresh_bm25": "statistics",
    "index_sentences": "sentences",
    "prepare_routing": "routing",
}


def table(report: dict[str, Any]) -> Table:
    t = Table(title=f"re-ingesting {report['docs']} edited documents, one fresh process, end to end")
    for col in ("chunks", "alone s", "ratio", *COLUMNS.values(), "via rag serve s"):
        t.add_column(col, justify="right")
    for r in report["rows"]:
        seconds = [f"{r['nodes'].get(k, 0.0):.2f}" for k in COLUMNS]
        t.add_row(
            f"{r['size']:,}",
            f"{r['wall_s']:.2f}",
            f"{r['ratio_to_smallest']:.2f}",
            *seconds,
            f"{r['served_wall_s']:.2f}",
        )
    return t


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report["rows"]
    names = sorted({k for r in rows for k in r["nodes"]}, key=lambda k: -max(r["nodes"].get(k, 0.0) for r in rows))
    fig, ax = plt.subplots(figsize=(9, 4))
    bottom = np.zeros(len(rows))
    labels = [f"{r['size']:,} chunks" for r in rows]
    for name in names:
        vals = np.array([r["nodes"].get(name, 0.0) for r in rows])
        ax.bar(labels, vals, bottom=bottom, label=name)
        bottom += vals
    for i, r in enumerate(rows):
        ax.hlines(r["wall_s"], i - 0.4, i + 0.4, colors="k", linestyles="dashed")
        ax.text(i, r["wall_s"], f"alone {r['wall_s']:.1f} s", ha="center", va="bottom", fontsize=8)
        ax.hlines(r["served_wall_s"], i - 0.4, i + 0.4, colors="tab:red")
        ax.text(
            i, r["served_wall_s"], f"via rag serve {r['served_wall_s']:.1f} s", ha="center", va="bottom", fontsize=8
        )
    ax.set_ylabel("seconds")
    ax.set_title(f"{report['docs']}-document re-ingest, end to end")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument(
        "--qdrant-path", type=Path, required=True, help="QDRANT_PATH of the store to copy (collection 'rag')"
    )
    p.add_argument("--sizes", default="0,100000", help="chunks per store, comma-separated; 0: the source's own size")
    p.add_argument("--docs", type=int, default=10, help="documents the delta edits")
    p.add_argument("--report", type=Path, default=DEFAULT_REPORT)
    p.add_argument("--work", type=Path, help="where the stores are built (default: a temporary folder)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    console = Console(stderr=True)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    with tempfile.TemporaryDirectory(prefix="rag-delta-") as tmp:
        report = run(args.qdrant_path, sizes, args.docs, args.work or Path(tmp), console)
    Console().print(table(report))
    png = save_report(report, args.report, plot)
    console.print(f"report: {args.report} · plot: {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
