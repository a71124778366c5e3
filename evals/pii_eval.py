"""Score the Presidio PII detector (``guardrails.pii.detect_pii``) on a labelled JSONL file.

Each line: ``{"text": ..., "lang": "en"|"ja", "spans": [{"start", "end", "entity_type"}], ...}``.
Offsets index the text as written (Python ``str`` indices, so full-width characters count one).

The matching rule, chosen to judge what redaction needs (was the data covered?) rather
than exact boundaries, on which annotators differ ("Dr. Smith" or "Smith"):

- a predicted span is a true positive when it overlaps (shares at least one character with)
  a gold span of the same type;
- a gold span is found (recall) when some predicted span of the same type overlaps it;
- ``STREET_ADDRESS`` and ``LOCATION`` count as one type, as do ``ADDRESS``, so that a gold set
  that labels street addresses ``LOCATION`` (presidio-research does) scores fairly;
- every prediction counts in precision, including types the gold set does not label.

Latency is the wall time of one ``detect_pii`` call with the language given, after the
analyzer has loaded (load time is reported on its own).

``python -m evals.pii_eval FILE.jsonl [--entities A,B] [--misses]`` prints a table;
``score_pii`` returns the same figures as a dict (``evals/guardrails.py --pii`` calls it).
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from guardrails.pii import PIIEntity, detect_pii, load_seconds

log = logging.getLogger(__name__)

#: gold or predicted type -> the type it is compared as
ALIASES = {"LOCATION": "STREET_ADDRESS", "ADDRESS": "STREET_ADDRESS", "PER": "PERSON", "EMAIL": "EMAIL_ADDRESS"}


def _norm(entity_type: str) -> str:
    return ALIASES.get(entity_type, entity_type)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def score_pii(path: Path, *, entities: Sequence[str] | None = None, keep_misses: bool = False) -> dict[str, Any]:
    """Recall, precision and latency of ``detect_pii`` on ``path``, per entity type and per language.

    Returns ``{"overall": {...}, "by_type": {type: {...}}, "by_language": {lang: {...}},
    "by_language_type": {"lang/type": {...}}, "latency_ms": {lang: {"p50", "p95", "n"}},
    "load_seconds": float, "lines": int, "rule": str}``, each ``{...}`` holding ``tp``
    (predictions that hit), ``fp``, ``found`` and ``gold`` (gold spans found / all), ``recall``
    and ``precision``. With ``keep_misses``, ``misses`` lists missed gold spans and false positives.
    """
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    loaded = load_seconds()
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"tp": 0, "fp": 0, "found": 0, "gold": 0})
    latency: dict[str, list[float]] = defaultdict(list)
    misses: list[dict[str, Any]] = []
    for row in rows:
        text, lang = row["text"], row.get("lang") or None
        t0 = time.perf_counter()
        predicted: list[PIIEntity] = detect_pii(text, lang, entities=entities)
        latency[lang or "auto"].append((time.perf_counter() - t0) * 1000)
        gold = [(s["start"], s["end"], _norm(s["entity_type"])) for s in row.get("spans", [])]
        pred = [(p.start, p.end, _norm(p.entity_type)) for p in predicted]
        for g in gold:
            hit = any(p[2] == g[2] and _overlaps(p[:2], g[:2]) for p in pred)
            for key in ("*", f"type:{g[2]}", f"lang:{lang}", f"{lang}/{g[2]}"):
                counts[key]["gold"] += 1
                counts[key]["found"] += hit
            if not hit and keep_misses:
                misses.append({"miss": text[g[0] : g[1]], "type": g[2], "text": text})
        for p in pred:
            ok = any(p[2] == g[2] and _overlaps(p[:2], g[:2]) for g in gold)
            for key in ("*", f"type:{p[2]}", f"lang:{lang}", f"{lang}/{p[2]}"):
                counts[key]["tp" if ok else "fp"] += 1
            if not ok and keep_misses:
                misses.append({"false_positive": text[p[0] : p[1]], "type": p[2], "text": text})

    def figures(key: str) -> dict[str, Any]:
        c = counts[key]
        return {**c, "recall": _ratio(c["found"], c["gold"]), "precision": _ratio(c["tp"], c["tp"] + c["fp"])}

    report: dict[str, Any] = {
        "lines": len(rows),
        "rule": "a prediction is correct when it overlaps a gold span of the same type "
        "(STREET_ADDRESS and LOCATION compared as one type)",
        "load_seconds": round(loaded, 3),
        "overall": figures("*"),
        "by_type": {k[5:]: figures(k) for k in sorted(counts) if k.startswith("type:")},
        "by_language": {k[5:]: figures(k) for k in sorted(counts) if k.startswith("lang:")},
        "by_language_type": {k: figures(k) for k in sorted(counts) if "/" in k},
        "latency_ms": {
            lang: {
                "p50": round(statistics.median(values), 2),
                "p95": round(_pct(values, 0.95), 2),
                "n": len(values),
            }
            for lang, values in sorted(latency.items())
        },
    }
    if keep_misses:
        report["misses"] = misses
    return report


def _print(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    def fmt(v: float | None) -> str:
        return "-" if v is None else f"{v:.3f}"

    table = Table(title=f"PII detection: {report['lines']} lines (load {report['load_seconds']:.2f} s)")
    for col in ("scope", "recall", "found/gold", "precision", "tp", "fp"):
        table.add_column(col, justify="left" if col == "scope" else "right")
    sections = (
        [("overall", report["overall"])]
        + [(f"lang {k}", v) for k, v in report["by_language"].items()]
        + list(report["by_language_type"].items())
    )
    for name, f in sections:
        found = f"{f['found']}/{f['gold']}"
        table.add_row(name, fmt(f["recall"]), found, fmt(f["precision"]), str(f["tp"]), str(f["fp"]))
    console = Console()
    console.print(table)
    lat = Table(title="latency per call (ms)")
    for col in ("language", "p50", "p95", "n"):
        lat.add_column(col, justify="right")
    for lang, v in report["latency_ms"].items():
        lat.add_row(lang, f"{v['p50']:.1f}", f"{v['p95']:.1f}", str(v["n"]))
    console.print(lat)
    console.print(report["rule"])
    for m in report.get("misses", []):
        console.print(m, markup=False)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Score guardrails.pii.detect_pii on a labelled PII JSONL file.")
    parser.add_argument("file", type=Path)
    parser.add_argument("--entities", default="", help="comma-separated entity types (default: the redacted set)")
    parser.add_argument("--misses", action="store_true", help="list missed spans and false positives")
    parser.add_argument("--json", type=Path, default=None, help="also write the report here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    entities = [e.strip() for e in args.entities.split(",") if e.strip()] or None
    report = score_pii(args.file, entities=entities, keep_misses=args.misses)
    _print(report)
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
