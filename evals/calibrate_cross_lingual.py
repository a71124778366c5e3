"""Fit the relevance model for a question and a chunk in different languages (``Calibration.cross_*``).

    rag ingest ../shared/data/jsquad/corpus.jsonl                          # into store A
    rag ingest SCIFACT_SUBSET.jsonl --no-sentence-vectors                  # into store B
    python -m evals.calibrate_cross_lingual --store jsquad=A_QDRANT:A_DATA --store scifact=B_QDRANT:B_DATA

A Japanese question about an English chunk shares almost no terms with it, and its cosine sits
lower than a same-language pair's, so the same-language model (``context_*``) calls relevant
cross-language chunks irrelevant (p ≈ 0.02). This fits p = sigmoid(b0 + b_dense·cosine +
b_lex·coverage) on cross-language pairs only.

Data: ``evals/data/cross_lingual_dev.jsonl``, English questions written for JSQuAD passages and
Japanese ones for SciFact abstracts (each line names its ``corpus`` and gold ``context_ids``), so
the sample-vault set (``evals/data/cross_lingual.jsonl``) stays held out. Pairs, as for the
same-language fit (``evals.calibrate_nonllm context``): positive = the question with its gold
document's chunks; negatives = the question with the chunks retrieved for another random
question, and with its own top dense chunks outside the gold document (what a search shows).
Features are maxed over a document's chunks. Fitted on half the questions (hash of the id), AUC
and accuracy on the other half; the coefficients and figures go to ``--report``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe

from components.factory import Components
from components.heuristics.extractive import term_coverage, term_weights
from components.settings import Settings
from evals.calibrate_nonllm import auc, fit_logistic
from evals.qa_dataset import load_qa

log = logging.getLogger(__name__)
HERE = Path(__file__).parent
#: the dense neighbour whose cosine is a question's own baseline (how close "nothing special" is)
REFERENCE_RANK = 20


def held_out(qid: str) -> bool:
    """Half of the questions, by a hash of their id: this set is written for the project and fitted
    on one half, reported on the other (the shared data's tune/check split does not cover it)."""
    return int(hashlib.sha1(qid.encode()).hexdigest(), 16) % 2 == 1


def rows_for(c: Components, samples: list[Any], seed: int = 13) -> list[dict[str, Any]]:
    """(dense, lex, y, held_out) per (question, document) pair of one store."""
    index = c.index()
    tok, idf = c.tokenizer, c.corpus().idf
    qv = c.embedder.encode_queries([s.question for s in samples])

    def chunks_of(doc_ids: list[str]) -> list[tuple[str, str]]:
        flt = qe.Filter(must=[qe.FieldCondition(key="doc_id", match=qe.MatchAny(doc_ids))])
        return [(str(p.id), str((p.payload or {}).get("text") or "")) for p in index.scroll(scroll_filter=flt)]

    def features(i: int, chunks: list[tuple[str, str]]) -> tuple[float, float]:
        vecs = index.vectors([pid for pid, _ in chunks])
        terms = tok(samples[i].question)
        w = term_weights(terms, idf)
        cov = max(term_coverage(terms, text, tokenize=tok, weights=w) for _, text in chunks)
        return max(float(v @ qv[i]) for v in vecs.values()), cov

    def top_dense(i: int, k: int = 3) -> list[str]:
        hits = index.search(qv[i], limit=k + 10)
        return [str((h.payload or {}).get("doc_id")) for h in hits]

    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for i, s in enumerate(samples):
        gold = list(s.context_ids)
        ho = held_out(s.id)
        ref = [float(h.score) for h in index.search(qv[i], limit=REFERENCE_RANK, with_payload=False)]
        d, cov = features(i, chunks_of(gold))
        out.append({"id": s.id, "dense": d, "lex": cov, "y": 1, "held_out": ho, "ref": ref[-1], "top": ref[0]})
        own = [doc for doc in dict.fromkeys(top_dense(i)) if doc not in gold][:3]
        j = rng.randrange(len(samples))
        while j == i:
            j = rng.randrange(len(samples))
        other = [doc for doc in dict.fromkeys(top_dense(j)) if doc not in gold][:3]
        for kind, docs in (("own", own), ("other", other)):
            for doc in docs:
                d, cov = features(i, chunks_of([doc]))
                row = {"id": s.id, "dense": d, "lex": cov, "y": 0, "held_out": ho, "negative": kind}
                out.append({**row, "ref": ref[-1], "top": ref[0]})
    return out


def fit(rows: list[dict[str, Any]]) -> dict[str, Any]:
    x = np.asarray([[r["dense"], r["lex"]] for r in rows])
    y = np.asarray([r["y"] for r in rows], dtype=np.float64)
    ho = np.asarray([r["held_out"] for r in rows])
    w = fit_logistic(x[~ho], y[~ho])
    p = 1 / (1 + np.exp(-(w[0] + x[ho] @ w[1:])))
    return {
        "coefficients": {"b0": float(w[0]), "b_dense": float(w[1]), "b_lex": float(w[2])},
        "n_train": int((~ho).sum()),
        "n_held_out": int(ho.sum()),
        "held_out_auc": auc(p, y[ho]),
        "held_out_accuracy@0.5": float(((p >= 0.5) == (y[ho] == 1)).mean()),
        "held_out_positives_passing@0.5": float((p[y[ho] == 1] >= 0.5).mean()),
        "held_out_negatives_passing@0.5": float((p[y[ho] == 0] >= 0.5).mean()),
        "auc_dense_only": auc(x[ho][:, 0], y[ho]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", type=Path, default=HERE / "data" / "cross_lingual_dev.jsonl")
    ap.add_argument("--store", action="append", required=True, help="CORPUS=QDRANT_PATH:DATA_DIR (repeat)")
    ap.add_argument("--report", type=Path, default=Path("evals/reports/cross_lingual_calibration.json"))
    args = ap.parse_args()
    logging.basicConfig(level=logging.WARNING)
    samples = load_qa(args.set)
    rows: list[dict[str, Any]] = []
    for spec in args.store:
        corpus, _, paths = spec.partition("=")
        qdrant, _, data = paths.partition(":")
        c = Components(Settings(qdrant_path=Path(qdrant), data_dir=Path(data)))
        mine = [s for s in samples if s.extra.get("corpus") == corpus]
        rows += [{**r, "corpus": corpus} for r in rows_for(c, mine)]
        log.warning("%s: %d questions, %d pairs", corpus, len(mine), len(rows))
    result = fit(rows)
    result["set"] = str(args.set)
    args.report.parent.mkdir(parents=True, exist_ok=True)
    args.report.write_text(json.dumps({**result, "rows": rows}, ensure_ascii=False, indent=2), encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
