"""An evaluation run: the compiled graph answers every question of a QA file, RAGAS scores each answer.

    rag eval qa DATASET.jsonl [--out DIR] [--judge MODEL] [-k 5] [--concurrency 2]

The run folder (default ``DATA_DIR/eval/<dataset name>``) holds ``samples.jsonl``, one line per
finished question written as soon as it is scored, and ``run.json``, what the run was made
with. A second invocation on the same folder continues where the first stopped: questions
already scored are kept, failed ones are asked again. A folder made with another dataset or
configuration is refused (``--fresh`` starts it over). A question that fails (the graph raised,
a metric raised) is recorded with its error and the run goes on. The report (``report.json``,
``summary.md``, ``plots/``) is written from the folder's lines at the end of every run.

The graph runs as a chat app calls it: ``build_rag_graph(Components())`` with a checkpointer for
follow-ups, the embedded defaults unless the environment says otherwise, the semantic cache off
(``--cache`` turns it on) so that every question runs the whole pipeline.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from components.factory import Components
from components.text.tokenizer import Tokenizer
from evals.qa_dataset import QASample, load_qa
from evals.qa_metrics import Answered, Judge, Metrics, is_decline, match_ids
from graph.context import Context
from graph.rag import build_rag_graph

log = logging.getLogger(__name__)

SAMPLES = "samples.jsonl"
MANIFEST = "run.json"


class RunMismatch(RuntimeError):
    """The run folder holds a run made with another dataset or configuration."""


@dataclass(frozen=True)
class RunOptions:
    dataset: Path
    out: Path
    k: int = 5
    concurrency: int = 2
    judge_model: str = ""
    cache: bool = False
    fresh: bool = False
    limit: int | None = None
    progress: bool = True


@dataclass
class RunTotals:
    """What one invocation did, for the summary line and the overhead figure."""

    asked: int = 0
    kept: int = 0
    failed: int = 0
    wall_s: float = 0.0
    graph_s: float = 0.0
    eval_s: float = 0.0


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def configuration(c: Components, opts: RunOptions, judge: Judge | None) -> dict[str, Any]:
    """What makes two runs comparable: the dataset, the index, the models and the run's settings."""
    s = c.settings
    index = c.index(None)
    meta = index.metadata()
    return {
        "dataset": str(opts.dataset),
        "dataset_sha256": file_digest(opts.dataset),
        "collection": index.collection,
        "index_version": meta.get("version", 0),
        "index_points": meta.get("points") or meta.get("count"),
        "embedding_model": c.embedder.model_id,
        "reranker_model": s.reranker_model or None,
        "llm_model": s.llm_model or None,
        "judge_model": judge.model_id if judge else None,
        "k": opts.k,
        "cache": opts.cache,
        "store": s.qdrant_url or str(s.qdrant_path),
        "data_dir": str(s.data_dir),
    }


def _comparable(cfg: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in cfg.items() if k != "dataset"}


def prepare_folder(out: Path, cfg: dict[str, Any], fresh: bool) -> dict[str, dict[str, Any]]:
    """The folder's finished records by id (none when fresh or new); refuses a foreign folder."""
    out.mkdir(parents=True, exist_ok=True)
    manifest, samples = out / MANIFEST, out / SAMPLES
    if fresh:
        samples.unlink(missing_ok=True)
    elif manifest.is_file() and samples.is_file():
        before = json.loads(manifest.read_text(encoding="utf-8")).get("configuration", {})
        changed = sorted(k for k, v in _comparable(cfg).items() if before.get(k) != v)
        if changed:
            raise RunMismatch(
                f"{out} holds a run made with another {', '.join(changed)} "
                f"({'; '.join(f'{k}: {before.get(k)!r} → {cfg[k]!r}' for k in changed)}). "
                "Give another --out folder, or --fresh to start this one over."
            )
    manifest.write_text(json.dumps({"configuration": cfg}, ensure_ascii=False, indent=2), encoding="utf-8")
    records = read_records(samples)
    # rewritten whole: a line an interrupted run cut short would glue itself to the next one appended
    tmp = samples.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records.values()), encoding="utf-8")
    tmp.replace(samples)
    return records


def read_records(path: Path) -> dict[str, dict[str, Any]]:
    """The last record per id in ``samples.jsonl``; a line cut short by an interrupted run is skipped."""
    records: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return records
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(r, dict) and "id" in r:
            records[str(r["id"])] = r
    return records


def make_judge(c: Components, model: str) -> Judge | None:
    """The RAGAS judge: ``model`` (provider:model or an Ollama model) at the configured server."""
    if not model:
        return None
    from components.models import providers

    provider, bare = providers.resolve(model, c.settings.llm_provider)
    llm = providers.build(provider, bare, c.settings, temperature=0.0)
    return Judge(llm=llm, embeddings=c.embedder, model_id=model)


def record_of(sample: QASample, out: dict[str, Any], latency_ms: float, k: int) -> tuple[dict[str, Any], Answered]:
    """The report's line for one answered question, and what the metrics need of it."""
    results = list(out.get("results") or [])[:k]
    gold = sample.context_ids
    context_ids = match_ids([r.get("doc_id") for r in results], [r.get("source") for r in results], gold)
    sources = list(out.get("sources") or [])
    cited = match_ids([s.get("doc_id") for s in sources], [s.get("source") for s in sources], gold)
    escalation = out.get("escalation")
    declined = is_decline(str(out.get("answer") or ""), escalated=escalation is not None)
    visits = [s["node"] for s in out.get("steps") or []]
    got = Answered(
        answer=str(out.get("answer") or ""),
        contexts=[str(r.get("text") or "") for r in results],
        context_ids=context_ids,
        cited_ids=cited,
        declined=declined,
    )
    record = {
        "id": sample.id,
        "question": sample.question,
        "answerable": sample.answerable,
        "reference": sample.ground_truth,
        "answer": got.answer,
        "route": out.get("route"),
        "path": out.get("path"),
        "declined": declined,
        "escalation": (escalation or {}).get("reason") if escalation else None,
        "loops": {
            "rewrites": max(0, visits.count("rewrite_query") - 1),
            "regenerations": max(0, visits.count("generate_answer") - 1),
        },
        "latency_ms": round(latency_ms, 1),
        "cache_hit": bool(out.get("cache_hit")),
        "context_ids": context_ids,
        "cited_ids": cited,
        "contexts": got.contexts,
        "warnings": list(out.get("warnings") or []),
        "request_id": out.get("request_id"),
        "extra": sample.extra,
    }
    return record, got


def run_qa(c: Components, opts: RunOptions, console: Console | None = None) -> tuple[Path, RunTotals]:
    """Answer and score every question not yet in the folder; returns the folder and this run's totals."""
    samples = load_qa(opts.dataset)
    if opts.limit:
        samples = samples[: opts.limit]
    judge = make_judge(c, opts.judge_model)
    cfg = configuration(c, opts, judge)
    done = prepare_folder(opts.out, cfg, opts.fresh)
    todo = [s for s in samples if s.id not in done or done[s.id].get("error")]
    metrics = Metrics(tokenize=Tokenizer(stem=True, stopwords=False), k=opts.k, judge=judge)
    totals = RunTotals(kept=len(samples) - len(todo))
    if not todo:
        return opts.out, totals
    t0 = time.perf_counter()
    asyncio.run(_run(c, opts, todo, metrics, totals, console))
    totals.wall_s = time.perf_counter() - t0
    return opts.out, totals


async def _run(
    c: Components, opts: RunOptions, todo: list[QASample], metrics: Metrics, totals: RunTotals, console: Console | None
) -> None:
    graph = build_rag_graph(c, checkpointer=InMemorySaver())
    ctx = Context(cache=opts.cache, top_k=max(opts.k, Context().top_k))
    run_id = uuid.uuid4().hex[:8]
    gate = asyncio.Semaphore(max(1, opts.concurrency))
    lock = asyncio.Lock()
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("questions · {task.fields[failed]} failed"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        disable=not opts.progress,
    )
    with progress, (opts.out / SAMPLES).open("a", encoding="utf-8") as sink:
        task = progress.add_task("answering + scoring", total=len(todo), failed=0)

        async def one(sample: QASample) -> None:
            async with gate:
                record = await _answer_and_score(graph, ctx, run_id, sample, metrics, opts.k, totals)
            async with lock:
                sink.write(json.dumps(record, ensure_ascii=False) + "\n")
                sink.flush()
                totals.asked += 1
                totals.failed += bool(record.get("error"))
                progress.update(task, advance=1, failed=totals.failed)

        await asyncio.gather(*(one(s) for s in todo))


async def _answer_and_score(
    graph: Any, ctx: Context, run_id: str, sample: QASample, metrics: Metrics, k: int, totals: RunTotals
) -> dict[str, Any]:
    config: Any = {"configurable": {"thread_id": f"eval-{run_id}-{sample.id}"}}
    inputs: dict[str, Any] = {"filters": sample.filters} if sample.filters else {}
    t0 = time.perf_counter()
    try:
        for earlier in sample.history:  # a follow-up: its thread first, unscored
            await graph.ainvoke({"question": earlier, **inputs}, config=config, context=ctx)
        t1 = time.perf_counter()
        out = await graph.ainvoke({"question": sample.question, "debug": True, **inputs}, config=config, context=ctx)
        latency = (time.perf_counter() - t1) * 1000
    except Exception as e:  # one question's failure is a line of the report, not the end of the run
        log.warning("question %s failed: %s", sample.id, e)
        totals.graph_s += time.perf_counter() - t0
        return {"id": sample.id, "question": sample.question, "error": f"{type(e).__name__}: {e}"}
    totals.graph_s += time.perf_counter() - t0
    record, got = record_of(sample, out, latency, k)
    t2 = time.perf_counter()
    try:
        record["metrics"] = await metrics.score(sample, got)
    except Exception as e:
        log.warning("scoring %s failed: %s", sample.id, e)
        record["error"] = f"scoring: {type(e).__name__}: {e}"
    totals.eval_s += time.perf_counter() - t2
    return record


def summary_line(totals: RunTotals) -> dict[str, Any]:
    share = totals.eval_s / totals.wall_s if totals.wall_s else 0.0
    return {**asdict(totals), "eval_share_of_wall": round(share, 4)}
