"""What authentication adds to a run through `langgraph dev`: the same search, alternating between
a server without the custom auth (the baseline) and one with it (a token file), in one run.

    python -m evals.auth_bench                       # the sample vault "life", 12 rounds of 5
    python -m evals.auth_bench --rounds 20 --per-round 10 --report evals/reports/auth_bench.json

Each server has its own store (the embedded store is one process's), filled by its ``ingest``
graph before any clock runs. A round asks each server ``--per-round`` searches, the order of
the two servers swapping every round; every question is distinct (``… #n``), so no answer comes
from a cache, and the baseline's runs carry the identity the authenticated server writes into its
own (so both run the same graph work). Wall milliseconds per ``runs.wait`` as the client sees
them. Prints p50 and p95 per server and the difference of the p50s against the issue's target
(5 ms); writes a JSON report and a plot of both distributions beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import secrets
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from langgraph_sdk import get_client
from rich.console import Console
from rich.table import Table

from evals.artifacts import save_report
from evals.process import REPO, LangGraphDev, store_env

log = logging.getLogger(__name__)

DEFAULT_REPORT = Path("evals/reports/auth_bench.json")
DEFAULT_VAULT = REPO / "examples" / "vaults" / "life"
#: the issue's target: what authentication may add to a run's p50, milliseconds
TARGET_MS = 5.0
QUESTION = "How often should the monstera be watered"
READY_TIMEOUT = 180.0
USER = "bench"
#: what the authenticated server writes into each run's context for the token's user
#: (graph.auth.as_context); the baseline's runs carry the same, so that both servers run the same
#: graph work and the difference is the authentication alone
IDENTITY: dict[str, Any] = {"user_id": USER, "tenant": "", "access_groups": []}


def start(root: Path, *, auth: bool) -> tuple[LangGraphDev, str | None]:
    """A server on its own store under ``root``; with ``auth``, a token file naming one user."""
    root.mkdir(parents=True)
    env = store_env(root / "qdrant", root / "data")
    token = None
    if auth:
        token = secrets.token_urlsafe(24)
        (root / "tokens.json").write_text(json.dumps({token: {"user": USER}}), encoding="utf-8")
        env["AUTH_TOKENS_FILE"] = str(root / "tokens.json")
    return LangGraphDev(root, env, auth=auth), token


async def measure(
    servers: dict[str, tuple[str, str | None]], vault: Path, rounds: int, per_round: int
) -> dict[str, list[float]]:
    clients = {
        name: get_client(url=url, timeout=300.0, headers={"Authorization": f"Bearer {token}"} if token else None)
        for name, (url, token) in servers.items()
    }
    for client in clients.values():  # untimed: fill each store and load each server's models
        ingest: dict[str, Any] = {"paths": [str(vault)]}
        await client.runs.wait(None, "ingest", input=ingest)
        for i in range(3):
            await client.runs.wait(None, "rag", input={"mode": "search", "question": f"{QUESTION} (warm-up {i})"})
    ms: dict[str, list[float]] = {name: [] for name in clients}
    order = list(clients)
    n = 0
    for r in range(rounds):
        for name in order if r % 2 == 0 else order[::-1]:
            for _ in range(per_round):
                n += 1
                payload: dict[str, Any] = {"mode": "search", "question": f"{QUESTION} #{n}", "top_k": 5}
                context = None if servers[name][1] else IDENTITY  # the auth server writes its own
                t0 = time.perf_counter()
                await clients[name].runs.wait(None, "rag", input=payload, context=context)
                ms[name].append((time.perf_counter() - t0) * 1000)
    return ms


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": statistics.median(ordered),
        "p95_ms": ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))],
        "n": len(ordered),
    }


def plot(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    names = list(report["samples_ms"])
    ax.boxplot([report["samples_ms"][n] for n in names], showfliers=False)
    ax.set_xticks(range(1, len(names) + 1), [f"{n} (p50 {report['servers'][n]['p50_ms']:.1f} ms)" for n in names])
    ax.set_ylabel("ms per search run (client wall)")
    ax.set_title(f"langgraph dev: authentication adds {report['added_p50_ms']:+.1f} ms at p50")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vault", type=Path, default=DEFAULT_VAULT, help="notes each server ingests (untimed)")
    p.add_argument("--rounds", type=int, default=12, help="rounds; the servers' order swaps every round")
    p.add_argument("--per-round", type=int, default=5, help="searches per server and round")
    p.add_argument("--report", type=Path, default=DEFAULT_REPORT)
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)

    with tempfile.TemporaryDirectory(prefix="auth-bench-") as tmp:
        started: dict[str, tuple[LangGraphDev, str | None]] = {}
        try:
            for name, auth in (("no auth", False), ("token auth", True)):
                started[name] = start(Path(tmp) / name.replace(" ", "-"), auth=auth)
            for name, (dev, _) in started.items():
                log.info("%s ready in %.1f s at %s", name, dev.wait_ready(READY_TIMEOUT), dev.url)
            ms = asyncio.run(
                measure({n: (d.url, t) for n, (d, t) in started.items()}, args.vault, args.rounds, args.per_round)
            )
        finally:
            for dev, _ in started.values():
                dev.stop()

    servers = {name: summary(samples) for name, samples in ms.items()}
    added = servers["token auth"]["p50_ms"] - servers["no auth"]["p50_ms"]
    report = {
        "what": "search runs through langgraph dev, alternating a server without and with custom auth",
        "vault": str(args.vault),
        "rounds": args.rounds,
        "per_round": args.per_round,
        "servers": servers,
        "added_p50_ms": added,
        "target_ms": TARGET_MS,
        "met": added <= TARGET_MS,
        "samples_ms": ms,
    }
    png = save_report(report, args.report, plot)
    table = Table(title="a search run through langgraph dev (client wall, ms)")
    for col in ("server", "p50", "p95", "runs"):
        table.add_column(col)
    for name, s in servers.items():
        table.add_row(name, f"{s['p50_ms']:.1f}", f"{s['p95_ms']:.1f}", str(s["n"]))
    console = Console()
    console.print(table)
    verdict = "met" if report["met"] else "NOT met"
    console.print(f"authentication adds {added:+.1f} ms at p50 (target ≤ {TARGET_MS:g} ms: {verdict})")
    console.print(f"report: {args.report} · plot: {png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
