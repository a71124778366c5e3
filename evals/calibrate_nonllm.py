"""Calibrate the no-LLM graders on the tune splits through the product's own search; report the check splits.

    python -m evals.calibrate_nonllm context   # fit the relevance model (search scores, context grading)
    python -m evals.calibrate_nonllm route     # questions kept on vector_search; the labelled routes
    python -m evals.calibrate_nonllm prf       # BM25 nDCG@10 with and without PRF expansion
    python -m evals.calibrate_nonllm answer TUNE_REPORT.json CHECK_REPORT.json ...
                                               # answer usefulness on `rag eval qa` reports

Data: ``../shared/data`` (its README names the splits): SciFact ``train-tune`` / ``train-check``
and JSQuAD ``tune`` / ``check``, split by article, so no check paragraph is ever fitted on. Each
corpus is ingested by the product's ingestion into the store ``evals.retrieval`` uses
(``.rag/bench/<name>``, made when missing, reused when current). Everything fitted is fitted on
the tune parts only; every figure is printed for tune and check side by side.

Context relevance (``Calibration.context_*`` and the lexical-only ``CONTEXT_LEX_*``), per query:
positive = the query with its judged documents; negative = the query with the top 3 documents
the product's search returns for another random query of the split (none judged for this one).
A pair's features are what ``rag search`` reports for each chunk when the query is searched with
a ``doc_ids`` filter on those documents (``retriever_scores``: ``dense``, the cosine, and
``coverage``, the idf-weighted share of the question's terms), the best of each over the chunks.

Answer usefulness (``Calibration.answer_*``): from ``rag eval qa`` reports (each names its store),
every question with its own extractive answer (useful) and another question's (not); fitted on
the first report (``jsquad/qa-tune.jsonl``), figures on each further one (``qa-check.jsonl``,
the sample-vault set).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from cli.search_cmd import rank_documents, run_search
from components.factory import Components
from components.heuristics.extractive import term_coverage, term_weights
from components.models.calibration import for_model
from components.retrieval.prf import expand_query
from evals.beir import BeirDataset, evaluate, load_beir
from evals.retrieval import ingest, make_settings
from graph.context import Context
from graph.rag import build_rag_graph

log = logging.getLogger(__name__)

DATA = Path("../shared/data")
BENCH = Path(".rag/bench")
REPORT = Path("evals/reports/nonllm_calibration.json")
#: (data set, tune split, check split)
SPLITS = (("scifact", "train-tune", "train-check"), ("jsquad", "tune", "check"))
#: questions per split at most (JSQuAD's tune part has 3,460; the first ones are enough for two features)
LIMIT = 800


# ------------------------------------------------------------------------------- the product's search
class Search:
    """One benchmark store and the compiled graph over it, searched as `rag search` searches."""

    def __init__(self, name: str) -> None:
        self.c = Components(make_settings(BENCH / name, name))
        ingest(self.c, DATA / name / "corpus.jsonl", progress=True, sentence_vectors=False)
        self.graph = build_rag_graph(self.c)
        self.loop = asyncio.Runner()

    def top_documents(self, question: str, k: int, context: Context | None = None) -> list[str]:
        return [str(d["doc_id"]) for d in self.loop.run(rank_documents(self.graph, question, k=k, context=context))]

    def features(self, question: str, doc_ids: list[str]) -> tuple[float, float] | None:
        """The best dense cosine and the best coverage over the chunks of ``doc_ids`` for ``question``."""
        payload = {"question": question, "top_k": 100, "filters": {"doc_ids": doc_ids}}
        out = self.loop.run(run_search(self.graph, payload, None, min_score=0.0, context=Context(candidates=100)))
        scores = [r["retriever_scores"] for r in out.get("results") or []]
        dense = [float(s["dense"]) for s in scores if "dense" in s]
        if not dense:
            return None
        return max(dense), max(float(s["coverage"]) for s in scores)

    def close(self) -> None:
        self.loop.close()
        self.c.close()


def queries(ds: BeirDataset, limit: int | None) -> list[tuple[str, str]]:
    return [(q, t) for q, t in ds.queries.items() if q in ds.qrels][:limit]


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


def predict(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-(w[0] + x @ w[1:]))))


def judged(w: np.ndarray, x: np.ndarray, y: np.ndarray) -> dict[str, float]:
    p = predict(w, x)
    return {"auc": round(auc(p, y), 4), "accuracy@0.5": round(float(((p >= 0.5) == (y == 1)).mean()), 4)}


# ------------------------------------------------------------------------------- context
def context_rows(search: Search, ds: BeirDataset, part: str, limit: int | None) -> list[dict[str, Any]]:
    """(dense, coverage, label) per (query, documents) pair of one split."""
    qs = queries(ds, limit)
    rng = random.Random(13)
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for qid, text in qs:
        gold = list(ds.qrels[qid])
        pos = search.features(text, gold)
        if pos is not None:
            rows.append({"dense": pos[0], "lex": pos[1], "y": 1, "part": part, "dataset": ds.name})
        other = qs[rng.randrange(len(qs))]
        while other[0] == qid:
            other = qs[rng.randrange(len(qs))]
        wrong = [d for d in search.top_documents(other[1], 3) if d not in ds.qrels[qid]]
        neg = search.features(text, wrong) if wrong else None
        if neg is not None:
            rows.append({"dense": neg[0], "lex": neg[1], "y": 0, "part": part, "dataset": ds.name})
    log.info("%s %s: %d pairs from %d questions in %.0f s", ds.name, part, len(rows), len(qs), time.perf_counter() - t0)
    return rows


def calibrate_context(limit: int | None) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    model_id = ""
    for name, tune, check in SPLITS:
        search = Search(name)
        try:
            model_id = search.c.embedder.model_id
            for part, split in (("tune", tune), ("check", check)):
                rows += context_rows(search, load_beir(DATA / name, split), part, limit)
        finally:
            search.close()
    x = np.asarray([[r["dense"], r["lex"]] for r in rows])
    y = np.asarray([r["y"] for r in rows], dtype=np.float64)
    fit = np.asarray([r["part"] == "tune" for r in rows])
    w = fit_logistic(x[fit], y[fit])
    w_lex = fit_logistic(x[fit][:, 1:], y[fit])
    cal = for_model(model_id)
    current = np.array([cal.context_b0, cal.context_b_dense, cal.context_b_lex])
    out: dict[str, Any] = {
        "embedding_model": model_id,
        "fitted_on": "SciFact train-tune + JSQuAD tune",
        "coefficients": {"b0": round(float(w[0]), 2), "b_dense": round(float(w[1]), 2), "b_lex": round(float(w[2]), 2)},
        "lexical_only": {"b0": round(float(w_lex[0]), 2), "b_lex": round(float(w_lex[1]), 2)},
        "before": {"b0": cal.context_b0, "b_dense": cal.context_b_dense, "b_lex": cal.context_b_lex},
    }
    for part in ("tune", "check"):
        for ds_name in ("scifact", "jsquad", "all"):
            m = np.asarray([r["part"] == part and ds_name in ("all", r["dataset"]) for r in rows])
            out[f"{part}/{ds_name}"] = {
                "n": int(m.sum()),
                "fitted": judged(w, x[m], y[m]),
                "before": judged(current, x[m], y[m]),
                "lexical_only": judged(w_lex, x[m][:, 1:], y[m]),
                "dense_only_auc": round(auc(x[m][:, 0], y[m]), 4),
            }
    return out


# ------------------------------------------------------------------------------- route
def calibrate_route(limit: int | None) -> dict[str, Any]:
    """Nothing is fitted: the share of each split's questions the product's router keeps on
    vector_search, and its accuracy on the hand-labelled routes."""
    out: dict[str, Any] = {}
    c = Components(make_settings(BENCH / "route", "route"))
    router, embedder = c.router, c.embedder
    try:
        for name, tune, check in SPLITS:
            for part, split in (("tune", tune), ("check", check)):
                qs = [t for _, t in queries(load_beir(DATA / name, split), limit)]
                routes = [router.route(q, v).route for q, v in zip(qs, embedder.encode_queries(qs), strict=True)]
                out[f"{part}/{name}"] = {"vector_search_share": routes.count("vector_search") / len(qs), "n": len(qs)}
        lines = Path("tests/data/route_questions.jsonl").read_text(encoding="utf-8").splitlines()
        labelled = [json.loads(line) for line in lines if line.strip()]
        vecs = embedder.encode_queries([r["question"] for r in labelled])
        pred = [router.route(r["question"], v).route for r, v in zip(labelled, vecs, strict=True)]
    finally:
        c.close()
    ok = [p == r["route"] for p, r in zip(pred, labelled, strict=True)]
    out["labelled"] = {"accuracy": sum(ok) / len(ok), "n": len(ok)}
    out["misrouted"] = [
        {"question": r["question"], "gold": r["route"], "pred": p}
        for p, r in zip(pred, labelled, strict=True)
        if p != r["route"]
    ]
    return out


# ------------------------------------------------------------------------------- prf
def calibrate_prf(limit: int | None) -> dict[str, Any]:
    """BM25 alone through the product's search, each question as asked and as PRF expands it."""
    lexical = Context(retrievers=("bm25",), rerank=False)
    out: dict[str, Any] = {}
    for name, tune, check in SPLITS:
        search = Search(name)
        try:
            corpus = search.c.corpus(None)
            for part, split in (("tune", tune), ("check", check)):
                ds = load_beir(DATA / name, split)
                qs = queries(ds, limit)
                base = {q: search.top_documents(t, 100, lexical) for q, t in qs}
                expanded = {q: expand_query(t, corpus=corpus, tokenizer=search.c.tokenizer).text for q, t in qs}
                prf = {q: search.top_documents(expanded[q], 100, lexical) for q, _ in qs}
                out[f"{part}/{name}"] = {"bm25": evaluate(base, ds.qrels), "bm25+prf": evaluate(prf, ds.qrels)}
        finally:
            search.close()
    return out


# ------------------------------------------------------------------------------- answer
def answer_rows(report: Path) -> list[dict[str, Any]]:
    """(question, own answer) and (question, another's answer) pairs of one report, with features."""
    from components.heuristics.grading import answer_sentences
    from components.settings import Settings
    from components.text.messages import is_decline, strip_citations

    data = json.loads(report.read_text(encoding="utf-8"))
    cfg = data["configuration"]
    settings = Settings(
        qdrant_path=Path(cfg["store"]), data_dir=Path(cfg["data_dir"]), collection=cfg["collection"], _env_file=None
    )  # type: ignore[call-arg]
    c = Components(settings)
    tok, idf = c.tokenizer, c.corpus(None).idf  # what grade_answer reads
    answered = [s for s in data["samples"] if not s.get("error") and not is_decline(s["answer"])]
    rng = random.Random(0)

    def features(question: str, answer: str) -> tuple[float, float] | None:
        sents = answer_sentences(answer)
        if not sents:
            return None
        v = c.embedder.encode_queries([question, *sents])
        weights = np.array([len(x) for x in sents], dtype=np.float32)
        cos = float((v[1:] @ v[0]) @ weights / weights.sum())
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


def answer_shares(w: np.ndarray, rows: list[dict[str, Any]]) -> dict[str, float]:
    x = np.array([[r["cos"], r["cov"]] for r in rows])
    y = np.array([r["useful"] for r in rows])
    p = predict(w, x)
    return {
        "pairs": len(rows),
        "auc": round(auc(p, y), 4),
        "own_pass": round(float(np.mean(p[y == 1] >= 0.5)), 4),
        "others_pass": round(float(np.mean(p[y == 0] >= 0.5)), 4),
    }


def calibrate_answer(reports: list[Path]) -> dict[str, Any]:
    fit_rows = answer_rows(reports[0])
    x = np.array([[r["cos"], r["cov"]] for r in fit_rows])
    w = fit_logistic(x, np.array([r["useful"] for r in fit_rows], dtype=float))
    from components.models.calibration import FALLBACK

    before = np.array([FALLBACK.answer_b0, FALLBACK.answer_b_cos, FALLBACK.answer_b_cov])
    out: dict[str, Any] = {
        "fitted_on": str(reports[0]),
        "coefficients": {"b0": round(float(w[0]), 2), "b_cos": round(float(w[1]), 2), "b_cov": round(float(w[2]), 2)},
        "before": {"b0": FALLBACK.answer_b0, "b_cos": FALLBACK.answer_b_cos, "b_cov": FALLBACK.answer_b_cov},
    }
    for report, rows in [(reports[0], fit_rows), *((r, answer_rows(r)) for r in reports[1:])]:
        out[str(report)] = {"fitted": answer_shares(w, rows), "before": answer_shares(before, rows)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["context", "route", "prf", "answer"])
    ap.add_argument("reports", nargs="*", type=Path, help="answer: rag eval qa report.json files (fit on the first)")
    ap.add_argument("--limit", type=int, default=LIMIT, help="questions per split at most (0: all)")
    ap.add_argument("--report", type=Path, default=REPORT)
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    for name in (__name__, "evals.retrieval"):
        logging.getLogger(name).setLevel(logging.INFO)
    limit = args.limit or None
    if args.what == "answer":
        if len(args.reports) < 2:
            ap.error(
                "answer needs the report.json of a `rag eval qa` run on the tune set, then at least one to check on"
            )
        result = calibrate_answer(args.reports)
    else:
        steps: dict[str, Callable[[int | None], dict[str, Any]]] = {
            "context": calibrate_context,
            "route": calibrate_route,
            "prf": calibrate_prf,
        }
        result = steps[args.what](limit)
    report = json.loads(args.report.read_text()) if args.report.exists() else {}
    report[args.what] = result
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps(report, indent=2, ensure_ascii=False, default=float))
    log.info("%s", json.dumps(result, indent=2, ensure_ascii=False, default=float))


if __name__ == "__main__":
    main()
