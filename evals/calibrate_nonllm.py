"""Calibrate the no-LLM graders and router on the benchmark data; print and save the figures.

    python -m evals.calibrate_nonllm context   # fit grading.CONTEXT_* (logistic), held-out AUC/accuracy
    python -m evals.calibrate_nonllm route     # routing share to vector_search, labelled-set accuracy
    python -m evals.calibrate_nonllm prf       # BM25 nDCG@10 with and without PRF expansion
    python -m evals.calibrate_nonllm answer FIT_REPORT.json [HELD_OUT_REPORT.json ...]
                                               # fit grading's answer usefulness on `rag eval qa` reports

Data: ``../shared/data/scifact`` (train) and ``../shared/data/jsquad`` (test, first 800 queries)
and the benchmark stores that ``evals.retrieval`` builds under ``.rag/bench/<name>``. The chunk
vectors and BM25 index are read from the store's files read-only (the embedded Qdrant keeps
its points in ``storage.sqlite``), so this runs while a benchmark holds the store's lock.

Answer usefulness data (``answer``), from ``rag eval qa`` reports (each names its store): every
question with its own answer (useful) and with another random question's answer (not), answers
that declined left out. Fitted on half of the first report's questions (hash of the id),
evaluated on the other half and on every further report: the share of own and of others'
answers that pass at p >= 0.5, against the question-answer cosine alone at 0.805.

Context grading data, per query: positive = the query with the chunks of its judged relevant
document; negative = the query with the top chunks (dense top 3 ∪ BM25 top 3) retrieved for a
different, random query. Queries are split in half by a hash of their id: the coefficients
are fitted on one half, AUC and accuracy reported on the other.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import pickle
import random
import sqlite3
import time
from pathlib import Path
from typing import Any

import numpy as np

from components.heuristics.extractive import term_coverage, term_weights
from components.models.embedders import Embedder
from components.stores.bm25 import BM25Index, load_any
from components.text.tokenizer import Tokenizer
from evals.beir import evaluate, load_beir

log = logging.getLogger(__name__)

DATA = Path("../shared/data")
BENCH = Path(".rag/bench")
REPORT = Path("evals/reports/nonllm_calibration.json")


# ------------------------------------------------------------------------------- store files
def store_vectors(name: str) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
    """Point id → chunk vector and payload, read from the embedded store's sqlite file."""
    db = BENCH / name / "qdrant" / "collection" / name / "storage.sqlite"
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    vecs: dict[str, np.ndarray] = {}
    payloads: dict[str, dict[str, Any]] = {}
    for _pid, blob in con.execute("select id, point from points"):
        p = pickle.loads(blob)
        v = p.vector["dense"] if isinstance(p.vector, dict) else p.vector
        vecs[str(p.id)] = np.asarray(v, dtype=np.float32)
        payloads[str(p.id)] = dict(p.payload or {})
    con.close()
    return vecs, payloads


def bench_bm25(name: str, tok: Tokenizer) -> BM25Index:
    path = next((BENCH / name / "data" / "bm25").glob("*.pkl"))
    bm = load_any(path, signature=tok.signature)
    if bm is None:
        raise SystemExit(f"no BM25 cache for {name} at {path}; run `python -m evals.retrieval` first")
    return bm


def held_out(qid: str) -> bool:
    return int(hashlib.sha1(qid.encode()).hexdigest(), 16) % 2 == 1


# ------------------------------------------------------------------------------- logistic
def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = 1e-3, iters: int = 50) -> np.ndarray:
    """Coefficients (intercept first) by Newton-Raphson (IRLS) with a small ridge."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + l2 * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + l2 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def auc(scores: np.ndarray, y: np.ndarray) -> float:
    """Area under the ROC curve (Mann-Whitney, ties counted half)."""
    pos, neg = scores[y == 1], scores[y == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


# ------------------------------------------------------------------------------- context
def context_rows(name: str, split: str, limit: int | None, tok: Tokenizer) -> list[dict[str, Any]]:
    """(dense, coverage, label, held_out, dataset) per (query, context) pair; features maxed over chunks."""
    ds = load_beir(DATA / name, split)
    vecs, payloads = store_vectors(name)
    bm = bench_bm25(name, tok)
    ids = list(vecs)
    mat = np.stack([vecs[i] for i in ids])
    by_doc: dict[str, list[str]] = {}
    for pid, pl in payloads.items():
        by_doc.setdefault(str(pl.get("doc_id")), []).append(pid)
    queries = list(ds.queries.items())[:limit]
    emb = configured_embedder()
    t0 = time.perf_counter()
    qv = emb.encode_queries([q for _, q in queries])
    log.info("%s: embedded %d queries in %.1fs", name, len(queries), time.perf_counter() - t0)
    idf = bm.idf
    rng = random.Random(13)
    rows: list[dict[str, Any]] = []

    def features(qi: int, pids: list[str]) -> tuple[float, float]:
        q_terms = tok(queries[qi][1])
        d = max(float(vecs[p] @ qv[qi]) for p in pids)
        w = term_weights(q_terms, idf)
        c = max(term_coverage(q_terms, payloads[p].get("text") or "", tokenize=tok, weights=w) for p in pids)
        return d, c

    for qi, (qid, _) in enumerate(queries):
        rel = [p for d in ds.qrels[qid] for p in by_doc.get(d, [])]
        if not rel:
            continue
        d, c = features(qi, rel)
        rows.append({"dense": d, "lex": c, "y": 1, "held_out": held_out(qid), "dataset": name})
        oj = rng.randrange(len(queries))
        while oj == qi:
            oj = rng.randrange(len(queries))
        top_dense = [ids[i] for i in np.argsort(-(mat @ qv[oj]))[:3]]
        top_bm25 = [h.point_id for h in bm.search(tok(queries[oj][1]), limit=3)]
        neg = [p for p in dict.fromkeys(top_dense + top_bm25) if payloads[p].get("doc_id") not in ds.qrels[qid]]
        if neg:
            d, c = features(qi, neg)
            rows.append({"dense": d, "lex": c, "y": 0, "held_out": held_out(qid), "dataset": name})
    return rows


def calibrate_context() -> dict[str, Any]:
    tok = Tokenizer()
    rows = context_rows("scifact", "train", None, tok) + context_rows("jsquad", "test", 800, tok)
    x = np.asarray([[r["dense"], r["lex"]] for r in rows])
    y = np.asarray([r["y"] for r in rows], dtype=np.float64)
    ho = np.asarray([r["held_out"] for r in rows])
    w = fit_logistic(x[~ho], y[~ho])
    w_lex = fit_logistic(x[~ho][:, 1:], y[~ho])
    out: dict[str, Any] = {
        "coefficients": {"b0": w[0], "b_dense": w[1], "b_lex": w[2]},
        "lexical_only": {"b0": w_lex[0], "b_lex": w_lex[1]},
        "n_train": int((~ho).sum()),
        "n_held_out": int(ho.sum()),
    }
    for ds_name in ("scifact", "jsquad", "all"):
        m = ho & np.asarray([ds_name in ("all", r["dataset"]) for r in rows])
        p = 1 / (1 + np.exp(-(w[0] + x[m] @ w[1:])))
        p_lex = 1 / (1 + np.exp(-(w_lex[0] + x[m][:, 1] * w_lex[1])))
        out[ds_name] = {
            "auc": auc(p, y[m]),
            "accuracy@0.5": float(((p >= 0.5) == (y[m] == 1)).mean()),
            "auc_lexical_only": auc(p_lex, y[m]),
            "accuracy_lexical_only@0.5": float(((p_lex >= 0.5) == (y[m] == 1)).mean()),
            "auc_dense_only": auc(x[m][:, 0], y[m]),
            "n": int(m.sum()),
        }
    return out


def configured_embedder() -> Embedder:
    """The model EMBEDDING_BACKEND/EMBEDDING_MODEL name: the one being calibrated."""
    from components.models.embedders import from_settings
    from components.settings import get_settings

    emb = from_settings(get_settings())
    log.info("calibrating for %s", emb.model_id)
    return emb


# ------------------------------------------------------------------------------- route
def calibrate_route(n: int = 300) -> dict[str, Any]:
    from components.heuristics.routing import ExemplarRouter
    from components.models.calibration import for_model

    emb = configured_embedder()
    cal = for_model(emb.model_id)
    router = ExemplarRouter(emb.encode_queries, margin=cal.route_margin, min_score=cal.route_min_score)
    out: dict[str, Any] = {}
    for name in ("scifact", "jsquad"):
        qs = [json.loads(line)["text"] for line in (DATA / name / "queries.jsonl").open(encoding="utf-8")][:n]
        vecs = emb.encode_queries(qs)
        routes = [router.route(q, v).route for q, v in zip(qs, vecs, strict=True)]
        out[name] = {"vector_search_share": routes.count("vector_search") / len(routes), "n": len(routes)}
    lines = Path("tests/data/route_questions.jsonl").read_text(encoding="utf-8").splitlines()
    labelled = [json.loads(line) for line in lines if line.strip()]
    vecs = emb.encode_queries([r["question"] for r in labelled])
    pred = [router.route(r["question"], v).route for r, v in zip(labelled, vecs, strict=True)]
    ok = [p == r["route"] for p, r in zip(pred, labelled, strict=True)]
    out["labelled"] = {"accuracy": sum(ok) / len(ok), "n": len(ok)}
    for route in ("web_search", "direct_answer", "vector_search"):
        sel = [o for o, r in zip(ok, labelled, strict=True) if r["route"] == route]
        out["labelled"][route] = sum(sel) / len(sel) if sel else None
    out["misrouted"] = [
        {"question": r["question"], "gold": r["route"], "pred": p}
        for p, r in zip(pred, labelled, strict=True)
        if p != r["route"]
    ]
    return out


# ------------------------------------------------------------------------------- prf
def calibrate_prf() -> dict[str, Any]:
    from components.retrieval.prf import expand_query

    tok = Tokenizer()
    out: dict[str, Any] = {}
    for name, split, limit in (("scifact", "train", None), ("jsquad", "test", 800)):
        bm = bench_bm25(name, tok)
        ds = load_beir(DATA / name, split)
        qs = list(ds.queries.items())[:limit]

        def ranking(text: str, bm: BM25Index = bm) -> list[str]:
            seen: dict[str, None] = {}
            for h in bm.search(tok(text), limit=100):
                seen.setdefault(bm.doc_ids[h.index], None)
            return list(seen)

        base = {qid: ranking(q) for qid, q in qs}
        t0 = time.perf_counter()
        prf = {qid: ranking(expand_query(q, corpus=bm, tokenizer=tok).text) for qid, q in qs}
        ms = (time.perf_counter() - t0) * 1000 / len(qs)
        out[name] = {"bm25": evaluate(base, ds.qrels), "bm25+prf": evaluate(prf, ds.qrels), "prf_ms_per_query": ms}
    return out


def answer_rows(report: Path) -> list[dict[str, Any]]:
    """(question, own answer) and (question, another's answer) pairs of one report, with features."""
    from components.factory import Components
    from components.heuristics.grading import answer_sentences
    from components.settings import Settings
    from components.text.messages import is_decline, strip_citations

    data = json.loads(report.read_text(encoding="utf-8"))
    cfg = data["configuration"]
    settings = Settings(
        qdrant_path=Path(cfg["store"]), data_dir=Path(cfg["data_dir"]), collection=cfg["collection"], _env_file=None
    )  # type: ignore[call-arg]
    c = Components(settings)
    tok, idf = c.tokenizer, c.bm25(None).idf
    answered = [s for s in data["samples"] if not s.get("error") and not is_decline(s["answer"])]
    rng = random.Random(0)

    def features(question: str, answer: str) -> tuple[float, float] | None:
        sents = answer_sentences(answer)
        if not sents:
            return None
        v = c.embedder.encode_queries([question, *sents])
        w = np.array([len(x) for x in sents], dtype=np.float32)
        cos = float((v[1:] @ v[0]) @ w / w.sum())
        terms = tok(question)
        cov = term_coverage(terms, strip_citations(answer), tokenize=tok, weights=term_weights(terms, idf))
        return cos, cov

    rows: list[dict[str, Any]] = []
    for s in answered:
        other = rng.choice([x for x in answered if x["id"] != s["id"]])
        for useful, answer in ((1, s["answer"]), (0, other["answer"])):
            f = features(s["question"], answer)
            if f is not None:
                rows.append({"id": str(s["id"]), "useful": useful, "cos": f[0], "cov": f[1]})
    c.close()
    return rows


def calibrate_answer(reports: list[Path]) -> dict[str, Any]:
    fit_rows = answer_rows(reports[0])
    train = [r for r in fit_rows if not held_out(r["id"])]
    x = np.array([[r["cos"], r["cov"]] for r in train])
    w = fit_logistic(x, np.array([r["useful"] for r in train], dtype=float))

    def shares(rows: list[dict[str, Any]]) -> dict[str, float]:
        xb = np.array([[1.0, r["cos"], r["cov"]] for r in rows])
        y = np.array([r["useful"] for r in rows])
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        cos = xb[:, 1]
        return {
            "pairs": len(rows),
            "auc": round(auc(p, y), 4),
            "own_pass": round(float(np.mean(p[y == 1] >= 0.5)), 4),
            "others_pass": round(float(np.mean(p[y == 0] >= 0.5)), 4),
            "cosine_0.805_own_pass": round(float(np.mean(cos[y == 1] >= 0.805)), 4),
            "cosine_0.805_others_pass": round(float(np.mean(cos[y == 0] >= 0.805)), 4),
        }

    out: dict[str, Any] = {
        "coefficients": {"b0": round(float(w[0]), 2), "b_cos": round(float(w[1]), 2), "b_cov": round(float(w[2]), 2)},
        "held_out_half": shares([r for r in fit_rows if held_out(r["id"])]),
    }
    for extra in reports[1:]:
        out[str(extra)] = shares(answer_rows(extra))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["context", "route", "prf", "answer"])
    ap.add_argument("reports", nargs="*", type=Path, help="answer: rag eval qa report.json files (fit on the first)")
    ap.add_argument("--report", type=Path, default=REPORT)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.what == "answer":
        if not args.reports:
            ap.error("answer needs at least one report.json of `rag eval qa`")
        result = calibrate_answer(args.reports)
    else:
        result = {"context": calibrate_context, "route": calibrate_route, "prf": calibrate_prf}[args.what]()
    report = json.loads(args.report.read_text()) if args.report.exists() else {}
    report[args.what] = result
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(report, indent=2, ensure_ascii=False, default=float))
    log.info("%s", json.dumps(result, indent=2, ensure_ascii=False, default=float))


if __name__ == "__main__":
    main()
