"""An evaluation run's report: aggregate figures, a JSON file, a Markdown summary and PNG plots.

``report.json`` holds the configuration, the aggregate and every question's line; ``summary.md``
the figures a person reads first; ``plots/`` the pictures they look at: metric distributions,
the latency histogram, the route / path / outcome mix. :func:`compare` puts two reports side
by side (``rag eval compare A.json B.json``) in a table and a chart.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter
from pathlib import Path
from typing import Any


def aggregate(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Means per metric (over the questions it applies to), outcome shares, the mix, latency."""
    ok = [r for r in records if not r.get("error")]
    names = list(dict.fromkeys(n for r in ok for n in (r.get("metrics") or {})))
    means: dict[str, dict[str, Any]] = {}
    for name in names:
        values = [v for r in ok if (v := (r.get("metrics") or {}).get(name)) is not None]
        means[name] = {"mean": round(statistics.fmean(values), 4) if values else None, "n": len(values)}
    answerable = [r for r in ok if r.get("answerable", True)]
    latencies = sorted(float(r["latency_ms"]) for r in ok if r.get("latency_ms") is not None)
    return {
        "questions": len(records),
        "answered": len(ok),
        "failed": len(records) - len(ok),
        "metrics": means,
        "fallback_rate": _share(sum(bool(r.get("declined")) for r in answerable), len(answerable)),
        "routes": dict(Counter(str(r.get("route")) for r in ok)),
        "paths": dict(Counter(str(r.get("path")) for r in ok)),
        "outcomes": dict(Counter(_outcome(r) for r in records)),
        "loops": {
            "rewrites_mean": _mean([r.get("loops", {}).get("rewrites", 0) for r in ok]),
            "regenerations_mean": _mean([r.get("loops", {}).get("regenerations", 0) for r in ok]),
        },
        "latency_ms": {
            "p50": round(_percentile(latencies, 50), 1) if latencies else None,
            "p95": round(_percentile(latencies, 95), 1) if latencies else None,
            "mean": round(statistics.fmean(latencies), 1) if latencies else None,
        },
    }


def _outcome(r: dict[str, Any]) -> str:
    if r.get("error"):
        return "failed"
    return "declined" if r.get("declined") else "answered"


def _share(n: int, total: int) -> float | None:
    return round(n / total, 4) if total else None


def _mean(values: list[Any]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def _percentile(sorted_values: list[float], q: float) -> float:
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = (len(sorted_values) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def write_report(
    folder: Path, records: list[dict[str, Any]], configuration: dict[str, Any], run: dict[str, Any]
) -> dict[str, Path]:
    """``report.json``, ``summary.md`` and ``plots/*.png`` in ``folder``; returns their paths."""
    agg = aggregate(records)
    report = {"configuration": configuration, "run": run, "aggregate": agg, "samples": records}
    paths = {"json": folder / "report.json", "markdown": folder / "summary.md"}
    paths["json"].write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    plots = draw_run(folder / "plots", records, agg)
    paths["markdown"].write_text(markdown(report, plots, folder), encoding="utf-8")
    return {**paths, **{f"plot:{p.stem}": p for p in plots}}


def markdown(report: dict[str, Any], plots: list[Path], folder: Path) -> str:
    cfg, agg, run = report["configuration"], report["aggregate"], report["run"]
    lines = [
        f"# Evaluation: {Path(cfg['dataset']).name}",
        "",
        f"{agg['questions']} questions, {agg['answered']} answered by the graph, {agg['failed']} failed. "
        f"Index `{cfg['collection']}` v{cfg['index_version']}, embedder `{cfg['embedding_model']}`, "
        f"LLM `{cfg['llm_model'] or 'none (extractive)'}`, judge `{cfg['judge_model'] or 'none'}`.",
        "",
        "| metric | mean | questions |",
        "| --- | ---: | ---: |",
    ]
    for name, m in agg["metrics"].items():
        if m["n"]:  # a metric no question had the inputs for (no reference passages) is left out
            lines.append(f"| {name} | {m['mean']:.3f} | {m['n']} |")
    lat = agg["latency_ms"]
    lines += [
        "",
        f"Fallback on answerable questions: {_pct(agg['fallback_rate'])}. "
        f"Latency p50 {lat['p50']} ms, p95 {lat['p95']} ms. "
        f"Routes {_mix(agg['routes'])}; paths {_mix(agg['paths'])}; outcomes {_mix(agg['outcomes'])}.",
        "",
        f"This invocation: {run.get('asked', 0)} asked, {run.get('kept', 0)} kept from before, "
        f"{run.get('failed', 0)} failed; scoring took {_pct(run.get('eval_share_of_wall'))} of its wall time.",
    ]
    misses = [r for r in report["samples"] if _missed(r)][:10]
    if misses:
        lines += ["", "## Worth a look", "", "| id | question | answer | why |", "| --- | --- | --- | --- |"]
        for r in misses:
            lines.append(f"| {r['id']} | {_cell(r['question'])} | {_cell(r.get('answer', ''))} | {_missed(r)} |")
    if plots:
        lines += ["", "## Plots", ""] + [f"![{p.stem}]({p.relative_to(folder).as_posix()})" for p in plots]
    return "\n".join(lines) + "\n"


def _missed(r: dict[str, Any]) -> str:
    if r.get("error"):
        return f"failed: {r['error']}"
    m = r.get("metrics") or {}
    if m.get("declined_correctly") == 0:
        return "declined an answerable question" if r.get("answerable", True) else "answered an unanswerable one"
    if m.get("cites_gold") == 0:
        return "no gold document cited"
    if m.get("span_in_answer") == 0:
        return "reference span not in the answer"
    return ""


def _cell(text: str, width: int = 60) -> str:
    flat = " ".join(str(text).split()).replace("|", "\\|")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{100 * x:.1f}%"


def _mix(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])) or "—"


# --------------------------------------------------------------------------- plots


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display on servers and in CI
    import matplotlib.pyplot as plt

    return plt


def draw_run(folder: Path, records: list[dict[str, Any]], agg: dict[str, Any]) -> list[Path]:
    """metrics.png, latency.png and mix.png (the ones with data to show)."""
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    ok = [r for r in records if not r.get("error")]
    out: list[Path] = []
    names = [n for n, m in agg["metrics"].items() if m["n"]]
    if names:
        cols = min(4, len(names))
        rows = math.ceil(len(names) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.4 * rows), squeeze=False)
        for ax, name in zip(axes.flat, names, strict=False):
            values = [v for r in ok if (v := (r.get("metrics") or {}).get(name)) is not None]
            ax.hist(values, bins=10, range=(0, 1), color="#4C72B0")
            ax.set_title(f"{name}\nmean {agg['metrics'][name]['mean']:.3f} (n={len(values)})", fontsize=9)
            ax.tick_params(labelsize=8)
        for ax in list(axes.flat)[len(names) :]:
            ax.axis("off")
        fig.suptitle("Per-question metric distributions", fontsize=11)
        fig.tight_layout()
        out.append(_save(fig, folder / "metrics.png", plt))
    latencies = [float(r["latency_ms"]) for r in ok if r.get("latency_ms") is not None]
    if latencies:
        fig, ax = plt.subplots(figsize=(6, 3.2))
        ax.hist(latencies, bins=30, color="#55A868")
        for q, style in (("p50", "--"), ("p95", ":")):
            ax.axvline(agg["latency_ms"][q], color="black", linestyle=style, label=f"{q} {agg['latency_ms'][q]} ms")
        ax.set_xlabel("ms per question (graph)")
        ax.set_ylabel("questions")
        ax.legend(fontsize=8)
        ax.set_title("Latency", fontsize=11)
        fig.tight_layout()
        out.append(_save(fig, folder / "latency.png", plt))
    if records:
        groups = [("route", agg["routes"]), ("path", agg["paths"]), ("outcome", agg["outcomes"])]
        fig, axes = plt.subplots(1, 3, figsize=(10, 2.8))
        for ax, (title, counts) in zip(axes, groups, strict=True):
            labels = sorted(counts, key=lambda k: -counts[k])
            ax.barh(labels, [counts[k] for k in labels], color="#8172B2")
            ax.set_title(title, fontsize=10)
            ax.invert_yaxis()
            ax.tick_params(labelsize=8)
        fig.suptitle("Route, path and outcome mix", fontsize=11)
        fig.tight_layout()
        out.append(_save(fig, folder / "mix.png", plt))
    return out


def _save(fig: Any, path: Path, plt: Any) -> Path:
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


# --------------------------------------------------------------------------- comparing two runs


def compare(a_path: Path, b_path: Path, out: Path) -> dict[str, Any]:
    """Aggregate metrics of two reports side by side (B − A), as JSON and ``compare.png`` in ``out``."""
    a, b = (_load_report(p) for p in (a_path, b_path))
    names = list(dict.fromkeys([*a["aggregate"]["metrics"], *b["aggregate"]["metrics"]]))
    rows = []
    for name in names:
        va = (a["aggregate"]["metrics"].get(name) or {}).get("mean")
        vb = (b["aggregate"]["metrics"].get(name) or {}).get("mean")
        delta = round(vb - va, 4) if va is not None and vb is not None else None
        rows.append({"metric": name, "a": va, "b": vb, "delta": delta})
    lat = {k: (a["aggregate"]["latency_ms"].get(k), b["aggregate"]["latency_ms"].get(k)) for k in ("p50", "p95")}
    result = {
        "a": str(a_path),
        "b": str(b_path),
        "metrics": rows,
        "fallback_rate": (a["aggregate"].get("fallback_rate"), b["aggregate"].get("fallback_rate")),
        "latency_ms": lat,
    }
    out.mkdir(parents=True, exist_ok=True)
    (out / "compare.json").write_text(json.dumps(result, ensure_ascii=False, indent=2), encoding="utf-8")
    result["plot"] = str(_draw_compare(out / "compare.png", rows, a_path, b_path))
    return result


def _load_report(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a readable report ({e}). Give the report.json of a `rag eval qa` run.") from e
    if not isinstance(data, dict) or "aggregate" not in data:
        raise ValueError(f"{path}: not a `rag eval qa` report (no aggregate). Give its report.json.")
    return data


def _draw_compare(path: Path, rows: list[dict[str, Any]], a: Path, b: Path) -> Path:
    plt = _pyplot()
    shown = [r for r in rows if r["a"] is not None or r["b"] is not None]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(shown) + 2), 3.6))
    xs = range(len(shown))
    ax.bar([x - 0.2 for x in xs], [r["a"] or 0 for r in shown], width=0.4, label=f"A: {a.parent.name}")
    ax.bar([x + 0.2 for x in xs], [r["b"] or 0 for r in shown], width=0.4, label=f"B: {b.parent.name}")
    ax.set_xticks(list(xs), [r["metric"] for r in shown], rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("mean")
    ax.legend(fontsize=8)
    ax.set_title("A vs B", fontsize=11)
    fig.tight_layout()
    return _save(fig, path, plt)
