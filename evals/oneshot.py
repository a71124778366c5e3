"""One-shot command latency: `rag search`, `rag ask` (no LLM), `rag status` and `rag search --help`
as a terminal user runs them, each alone in a fresh process, against a baseline in the same run:
forwarded to a running `rag serve`, or (``--against REV``) the same commands run by another git
revision's code, alone too, the two alternating command by command.

    python -m evals.oneshot --data-dir /tmp/sci/data --qdrant-path /tmp/sci/qdrant --runs 5
    python -m evals.oneshot --data-dir /tmp/sci/data --qdrant-path /tmp/sci/qdrant --against HEAD~1
    python -m evals.oneshot --corpus ../shared/data/scifact/corpus.jsonl --limit 300   # builds a store

Wall seconds per command from process start to exit (``subprocess``), over ``--runs`` runs after
``--warmup`` untimed runs (default one) that warm the page cache. Every question is asked once (a repeated one would
come from the semantic cache): the two modes take alternate questions of one list. The baseline
is the same command with ``RAG_SERVER=off`` in the same run. Writes a JSON report and a bar
chart beside it.
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from evals.artifacts import save_report
from evals.process import ServeProcess, code_at, interpreter_and_cpus, rss_mb, run_rag, store_env

DEFAULT_REPORT = Path("evals/reports/oneshot.json")
#: the issue's targets for a 10k-chunk store with a warm page cache, seconds
TARGETS = {"search": 1.5, "ask": 2.5, "status": 0.7, "help": 0.3}
#: questions when no --queries file is given (each is asked once: a repeat would come from the cache)
BUILT_IN_QUESTIONS = (
    "What does vitamin D deficiency increase the risk of?",
    "How does protein misfolding relate to neurodegeneration?",
    "Which genes raise the risk of breast cancer?",
    "What is the effect of aspirin on colorectal cancer?",
    "How do statins affect cholesterol levels?",
    "What causes antibiotic resistance in bacteria?",
    "睡眠不足は健康にどのような影響を与えますか？",
    "運動は心臓病のリスクを下げますか？",
    "What is the role of the microbiome in obesity?",
    "How does smoking affect lung cancer risk?",
    "What regulates insulin secretion?",
    "Does coffee consumption affect mortality?",
)
READY_TIMEOUT_S = 600


def questions(path: Path | None, needed: int) -> list[str]:
    """Distinct questions: the first ``needed`` of a BEIR ``queries.jsonl``, or the built-in ones."""
    if path is None:
        pool = list(BUILT_IN_QUESTIONS)
    else:
        with path.open(encoding="utf-8") as f:
            pool = [json.loads(line)["text"] for line, _ in zip(f, range(needed), strict=False)]
    if len(pool) < needed:
        raise SystemExit(f"{needed} distinct questions needed, {len(pool)} available: give --queries or fewer --runs")
    return pool[:needed]


def commands(pool: list[str]) -> dict[str, list[list[str]]]:
    """The command lines timed per command kind, one per run (a search and an ask per question)."""
    return {
        "search": [["search", q, "-k", "5", "-f", "brief"] for q in pool],
        "ask": [["ask", q, "--no-llm"] for q in pool],
        "status": [["status"] for _ in pool],
        "help": [["search", "--help"] for _ in pool],
    }


def run_once(args: list[str], env: dict[str, str], code: Path | None = None) -> float:
    """Wall seconds of one ``rag`` command; ``code``: another revision's tree to run it from."""
    return run_rag(args, env, code=code)[1]


def measure(env: dict[str, str], pool: list[str], label: str, bar: Progress, warmup: int = 1) -> dict[str, list[float]]:
    """Times of each command over ``pool[warmup:]``; the first ``warmup`` are untimed runs that warm
    the page cache."""
    kinds = commands(pool)
    times: dict[str, list[float]] = {k: [] for k in kinds}
    task = bar.add_task(label, total=(len(pool) - warmup) * len(kinds))
    for lines in kinds.values():
        for line in lines[:warmup]:
            run_once(line, env)
    for i in range(warmup, len(pool)):
        for kind, lines in kinds.items():
            times[kind].append(run_once(lines[i], env))
            bar.advance(task)
    return times


def measure_against(
    env: dict[str, str], pool: list[str], code: Path, bar: Progress, warmup: int = 1
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Times of each command by ``code``'s revision and by this tree, alternating command by command
    (the machine's drift falls on both); each side asks its own half of ``pool`` (the semantic cache
    would answer a question asked twice)."""
    mine, theirs = commands(pool[1::2]), commands(pool[0::2])
    times: tuple[dict[str, list[float]], dict[str, list[float]]] = ({k: [] for k in mine}, {k: [] for k in mine})
    task = bar.add_task(f"baseline {code.name} and this tree, alternating", total=(len(pool) // 2 - warmup) * len(mine))
    for kind in mine:
        for i in range(warmup):
            run_once(theirs[kind][i], env, code)
            run_once(mine[kind][i], env)
    for i in range(warmup, len(pool) // 2):
        for kind in mine:
            times[0][kind].append(run_once(theirs[kind][i], env, code))
            times[1][kind].append(run_once(mine[kind][i], env))
            bar.advance(task)
    return times


def summarise(times: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {
        k: {"p50_s": statistics.median(v), "max_s": max(v), "min_s": min(v), "runs": len(v)} for k, v in times.items()
    }


def compared(
    before: dict[str, dict[str, float]], after: dict[str, dict[str, float]], names: tuple[str, str]
) -> list[dict[str, Any]]:
    """A row per command: both p50s under ``names``, the speed-up, and the target the second meets or not."""
    return [
        {
            "command": k,
            names[0]: before[k]["p50_s"],
            names[1]: after[k]["p50_s"],
            "speedup": before[k]["p50_s"] / after[k]["p50_s"] if after[k]["p50_s"] else 0.0,
            "target_s": TARGETS[k],
            "met": after[k]["p50_s"] <= TARGETS[k],
        }
        for k in after
    ]


def status(env: dict[str, str]) -> dict[str, Any]:
    """`rag status --json` (through the server when one runs: then it names the server)."""
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "status", "--json"], env=env, capture_output=True, text=True, timeout=600
    )
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        return {}
    return report if isinstance(report, dict) else {}


def run(env: dict[str, str], pool: list[str], console: Console, warmup: int = 1) -> dict[str, Any]:
    """Both modes; the questions alternate between them (no question is asked twice: the semantic
    cache would answer the second time), so each mode gets every other one."""
    alone_env = {**env, "RAG_SERVER": "off"}
    chunks = int(status(alone_env).get("points") or 0)
    runs = len(pool) // 2 - warmup
    with Progress(console=console) as bar:
        alone = measure(alone_env, pool[0::2], "alone (RAG_SERVER=off)", bar, warmup)
        served_env = {**env, "RAG_SERVER": "on"}  # whatever the caller's environment says
        server = ServeProcess(served_env)
        try:
            ready_s = server.wait_ready(READY_TIMEOUT_S)
            served = measure(served_env, pool[1::2], "through rag serve", bar, warmup)
            # proof that the timed commands ran in the server, not alone beside it
            served_requests = int((status(served_env).get("server") or {}).get("requests") or 0)
            server_rss_mb = rss_mb(server.pid)
        finally:
            server.stop()
    a, s = summarise(alone), summarise(served)
    rows = compared(a, s, ("alone_p50_s", "served_p50_s"))
    return {
        "chunks": chunks,
        "runs": runs,
        "warmup": warmup,
        "server_ready_s": ready_s,
        "server_requests": served_requests,
        "server_rss_mb": server_rss_mb,
        "rows": rows,
        "alone": a,
        "served": s,
        "raw": {"alone": alone, "served": served},
        **interpreter_and_cpus(),
    }


def run_against(env: dict[str, str], pool: list[str], console: Console, rev: str, warmup: int = 1) -> dict[str, Any]:
    """This tree against revision ``rev``, both alone (``RAG_SERVER=off``)."""
    alone_env = {**env, "RAG_SERVER": "off"}
    chunks = int(status(alone_env).get("points") or 0)
    with tempfile.TemporaryDirectory(prefix="rag-oneshot-code-") as tmp, Progress(console=console) as bar:
        code = code_at(rev, Path(tmp) / rev.replace("/", "_"))
        before, after = measure_against(alone_env, pool, code, bar, warmup)
    b, a = summarise(before), summarise(after)
    rows = compared(b, a, ("baseline_p50_s", "p50_s"))
    return {
        "against": rev,
        "chunks": chunks,
        "runs": len(pool) // 2 - warmup,
        "warmup": warmup,
        "rows": rows,
        "baseline": b,
        "this": a,
        "raw": {"baseline": before, "this": after},
        **interpreter_and_cpus(),
    }


def table(report: dict[str, Any]) -> Table:
    against = "against" in report
    mode = "alone" if against else "alone and through rag serve"
    t = Table(title=f"one-shot commands {mode}, {report['chunks']} chunks, p50 of {report['runs']} runs (wall s)")
    first, second = ("baseline_p50_s", "p50_s") if against else ("alone_p50_s", "served_p50_s")
    labels = (report["against"], "this tree") if against else ("alone", "through rag serve")
    for col in ("command", *labels, "speedup", "target", "met"):
        t.add_column(col)
    for r in report["rows"]:
        t.add_row(
            f"rag {r['command']}" if against else r["command"],
            f"{r[first]:.2f}",
            f"{r[second]:.2f}",
            f"{r['speedup']:.2f}x" if against else f"{r['speedup']:.1f}x",
            f"≤ {r['target_s']:g}",
            "yes" if r["met"] else "no",
        )
    return t


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = report["rows"]
    against = "against" in report
    first, second = ("baseline_p50_s", "p50_s") if against else ("alone_p50_s", "served_p50_s")
    labels = (report["against"], "this tree") if against else ("alone (today)", "through rag serve")
    x = range(len(rows))
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    ax.bar([i - 0.2 for i in x], [r[first] for r in rows], width=0.4, label=labels[0])
    ax.bar([i + 0.2 for i in x], [r[second] for r in rows], width=0.4, label=labels[1])
    ax.scatter(list(x), [r["target_s"] for r in rows], marker="_", s=900, color="k", label="target", zorder=3)
    ax.set_xticks(list(x), [f"rag {r['command']}" for r in rows])
    ax.set_ylabel("wall seconds (p50)")
    ax.set_title(f"one-shot commands at {report['chunks']} chunks")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, help="DATA_DIR of an existing store")
    p.add_argument("--qdrant-path", type=Path, help="QDRANT_PATH of an existing store")
    p.add_argument("--corpus", type=Path, help="or: build a store from this corpus first (untimed)")
    p.add_argument("--limit", type=int, default=300, help="documents of --corpus to ingest")
    p.add_argument("--runs", type=int, default=5, help="timed runs per command and mode")
    p.add_argument(
        "--warmup", type=int, default=1, help="untimed runs per command and mode before the timed ones (0: none)"
    )
    p.add_argument("--queries", type=Path, help="BEIR queries.jsonl to take the questions from (default: built-in)")
    p.add_argument(
        "--against", metavar="REV", help="time this git revision's code alone instead of `rag serve` (e.g. HEAD~1)"
    )
    p.add_argument("--report", type=Path, default=DEFAULT_REPORT)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    console = Console(stderr=True)
    with tempfile.TemporaryDirectory(prefix="rag-oneshot-") as tmp:
        if args.data_dir and args.qdrant_path:
            env = store_env(args.qdrant_path.resolve(), args.data_dir.resolve())
        elif args.corpus:
            env = store_env(Path(tmp) / "qdrant", Path(tmp) / "data")
            corpus = Path(tmp) / "corpus.jsonl"
            with args.corpus.open(encoding="utf-8") as src:
                corpus.write_text("".join(line for _, line in zip(range(args.limit), src, strict=False)))
            console.print(f"ingesting {args.limit} documents of {args.corpus} (not timed)")
            subprocess.run(
                [sys.executable, "-m", "cli", "ingest", str(corpus), "--json"],
                env={**env, "RAG_SERVER": "off"},
                check=True,
                capture_output=True,
            )
        else:
            p.error("give --data-dir and --qdrant-path of a store, or --corpus to build one")
        if args.runs < 1 or args.warmup < 0:
            p.error("--runs must be at least 1 and --warmup at least 0")
        pool = questions(args.queries, 2 * (args.runs + args.warmup))
        if args.against:
            report = run_against(env, pool, console, args.against, args.warmup)
        else:
            report = run(env, pool, console, args.warmup)
    Console().print(table(report))
    png = save_report(report, args.report, plot)
    if args.against:
        console.print(f"report: {args.report} · plot: {png}")
    else:
        console.print(
            f"report: {args.report} · plot: {png} · rag serve ready in {report['server_ready_s']:.1f} s, "
            f"{report['server_rss_mb']:.0f} MB resident"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
