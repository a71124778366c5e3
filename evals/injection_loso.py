"""The injection detector judged by leaving one source out (issue 35).

Why: a development set written by the detector's authors measures its authors. Here every
``source`` (one public dataset and its translations, or the project's own set as a whole) is in
turn the only data the model has never seen: the classifier is fit on all other sources, its
threshold is chosen on out-of-fold scores of those other sources only (folds grouped by source,
so the threshold is set on sources the fold's model did not see either), and then the left-out
source is scored once. Nothing about the scored source (its lines, its labels, its score
distribution) reaches the fit or the threshold.

The design the detector reads (``Design``) is built once for all rows: e5 query vectors of every
window the detector reads (``guardrails.injection.read_pieces``), and, when asked for, hashed
character n-grams of each window and of each clause of it (the window's vector beside the
clause's n-grams), exactly as ``guardrails.injection.Head`` scores at question time.
"""

from __future__ import annotations

import json
import logging
import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from guardrails.cues import CUE_NAMES, cue_matrix
from guardrails.injection import CHAR_FEATURES, char_ngrams, clauses, read_pieces

log = logging.getLogger(__name__)

DEV = Path("guardrails/data/injection_dev.jsonl")
PUBLIC = Path("guardrails/data/injection")
DEV_SOURCE = "injection_dev"
LANGS = ("en", "de", "ja", "zh")

Encode = Callable[[list[str]], np.ndarray]
Fit = Callable[[sparse.csr_matrix, np.ndarray, np.ndarray], "Linear"]


def load_sources(dev: Path = DEV, public: Path = PUBLIC) -> list[dict[str, Any]]:
    """Every line of the dev file (as one source, ``injection_dev``) and of each public file."""
    rows: list[dict[str, Any]] = []
    for path in [dev, *sorted(public.glob("*.jsonl"))]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if path == dev:
                    row = {**row, "source": DEV_SOURCE}
                rows.append(row)
    return rows


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def lang_bucket(lang: str) -> str:
    return lang if lang in LANGS else "other"


@dataclass(frozen=True)
class Options:
    """What the detector reads and how it is fit."""

    chars: bool = False  #: hashed character n-grams beside the e5 vector
    clauses: bool = False  #: also score each clause of a window (needs ``chars``)
    char_weight: float = 1.0  #: scale of the n-gram block against the unit-norm e5 vector
    n_features: int = CHAR_FEATURES
    c: float = 4.0  #: inverse regularisation
    max_fpr: float = 0.03
    inner_folds: int = 4  #: folds (grouped by source) for the out-of-fold threshold
    row_weights: bool = False  #: each row weighs 1 however many windows it has (else each window)
    per_language: bool = True  #: the FPR cap holds in every language (else over all benign lines)
    inner_by: str = "source"  #: what the threshold's folds group by: "source" or "group"
    center_languages: bool = False  #: subtract each language's mean benign vector (from the training rows) from e5
    hard_negatives: float = 1.0  #: refit with benign windows the first fit scored as attacks weighed this much more
    #: a threshold per language, the language read off each line's highest window as its nearest
    #: center (needs ``center_languages``), each the lowest keeping ``max_fpr`` of that language's benign lines
    language_thresholds: bool = False
    cues: bool = False  #: the cue families of ``guardrails.cues`` beside the e5 vector
    cue_weight: float = 1.0  #: scale of the cue block (0/1 features) against the unit-norm e5 vector


@dataclass
class Design:
    """Per scored item (a window, or a clause of a window): its row, its e5 row and its n-grams.

    Training uses the window items only (a clause has no label of its own); scoring takes each
    row's highest item, as the detector does."""

    owner: np.ndarray  #: row index of each item
    is_window: np.ndarray  #: False for clause items
    e5: np.ndarray  #: one e5 vector per item (a clause item repeats its window's)
    chars: sparse.csr_matrix | None
    n_rows: int
    lang: np.ndarray  #: language bucket of each item's row
    cues: np.ndarray | None = None  #: the cue families of each item's text (already scaled)

    def matrix(
        self, items: np.ndarray, weight: float, centers: dict[str, np.ndarray] | None = None
    ) -> sparse.csr_matrix:
        """Columns: the e5 vector (less its language center), the cues, the n-grams (scaled by ``weight``)."""
        e5 = self.e5[items]
        if centers is not None:
            e5 = e5 - nearest_center(e5, centers)
        blocks = [sparse.csr_matrix(e5)]
        if self.cues is not None:
            blocks.append(sparse.csr_matrix(self.cues[items]))
        if self.chars is not None:
            blocks.append(self.chars[items] * weight)
        return blocks[0] if len(blocks) == 1 else sparse.hstack(blocks, format="csr")


def _char_matrix(texts: Sequence[str], n_features: int) -> sparse.csr_matrix:
    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    cache: dict[str, dict[int, float]] = {}
    for t in texts:
        grams = cache.get(t)
        if grams is None:
            grams = cache[t] = char_ngrams(t, n_features)
        indices.extend(grams.keys())
        data.extend(grams.values())
        indptr.append(len(indices))
    return sparse.csr_matrix(
        (np.asarray(data, dtype=np.float32), np.asarray(indices, dtype=np.int64), np.asarray(indptr)),
        shape=(len(texts), n_features),
    )


def build_design(rows: list[dict[str, Any]], embed: Encode, options: Options) -> Design:
    """Windows of every row as the detector reads them, embedded through ``embed`` (cached by the caller)."""
    owner: list[int] = []
    texts: list[str] = []
    for i, r in enumerate(rows):
        for _, w in read_pieces(r["text"]):
            owner.append(i)
            texts.append(w)
    vectors = embed(texts)
    item_owner = list(owner)
    item_e5 = list(range(len(texts)))
    item_text = list(texts)
    is_window = [True] * len(texts)
    if options.clauses:
        for j, w in enumerate(texts):
            for c in clauses(w):
                item_owner.append(owner[j])
                item_e5.append(j)
                item_text.append(c)
                is_window.append(False)
    chars = _char_matrix(item_text, options.n_features) if options.chars else None
    # a clause item carries its window's cues, as ``Head.text_probabilities`` adds them per window
    cues = cue_matrix(texts)[np.asarray(item_e5)] * options.cue_weight if options.cues else None
    langs = np.asarray([lang_bucket(r["lang"]) for r in rows])
    owners = np.asarray(item_owner)
    return Design(owners, np.asarray(is_window), vectors[np.asarray(item_e5)], chars, len(rows), langs[owners], cues)


@dataclass(frozen=True)
class Linear:
    """A fitted linear model: logit = x . coef + intercept."""

    coef: np.ndarray
    intercept: float
    centers: dict[str, np.ndarray] | None = None

    def logits(self, x: sparse.csr_matrix) -> np.ndarray:
        return np.asarray(x @ self.coef).ravel() + self.intercept


def fit_logistic(x: sparse.csr_matrix, y: np.ndarray, sample_weight: np.ndarray, c: float = 4.0) -> Linear:
    """Class-balanced logistic regression (the balance is in ``sample_weight``)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=3000, tol=1e-4).fit(x, y, sample_weight=sample_weight)
    return Linear(np.asarray(model.coef_[0], dtype=np.float64), float(model.intercept_[0]))


def _weights(y: np.ndarray, owner: np.ndarray, by_row: bool) -> np.ndarray:
    """The two classes weigh the same in total; with ``by_row`` each row weighs 1 whatever its
    number of windows (a 4,000-character e-mail does not outvote 20 questions)."""
    w = 1.0 / np.bincount(owner)[owner] if by_row else np.ones(len(y))
    for label in (0, 1):
        mask = y == label
        if mask.any():
            w[mask] *= len(y) / (2.0 * w[mask].sum())
    return w


def fit_rows(design: Design, y_rows: np.ndarray, train_rows: np.ndarray, options: Options, fit: Fit) -> Linear:
    """The detector fit on the windows of ``train_rows`` only."""
    items = np.flatnonzero(design.is_window & np.isin(design.owner, train_rows))
    y = y_rows[design.owner[items]]
    centers = _centers(design, items[y == 0]) if options.center_languages else None
    x = design.matrix(items, options.char_weight, centers)
    w = _weights(y, design.owner[items], options.row_weights)
    model = fit(x, y, w)
    if options.hard_negatives != 1.0:
        # hard-negative mining: the benign windows the first fit put on the attack side (imperatives
        # full of attack words, e-mails that read like the planted ones) count more in a second fit
        hard = (y == 0) & (model.logits(x) > 0)
        w = np.where(hard, w * options.hard_negatives, w)
        model = fit(x, y, w)
    return Linear(model.coef, model.intercept, centers)


def nearest_center(vectors: np.ndarray, centers: dict[str, np.ndarray]) -> np.ndarray:
    """Per vector, the language center nearest to it: the language read off the vector itself, so
    that scoring needs no language detector (e5 vectors cluster by language)."""
    stack = np.stack(list(centers.values()))
    d = ((vectors[:, None, :] - stack[None, :, :]) ** 2).sum(axis=2)
    return np.asarray(stack[np.argmin(d, axis=1)], dtype=np.float32)


def _centers(design: Design, benign_items: np.ndarray) -> dict[str, np.ndarray]:
    """Each language's mean benign e5 vector over the training windows (all benign for a language without any)."""
    overall = design.e5[benign_items].mean(axis=0)
    out = {}
    for lang in (*LANGS, "other"):
        mine = benign_items[design.lang[benign_items] == lang]
        out[lang] = design.e5[mine].mean(axis=0) if len(mine) else overall
    return out


def score_rows(design: Design, model: Linear, rows: np.ndarray, options: Options) -> np.ndarray:
    """Per row in ``rows``: the probability of its highest item (window or clause)."""
    return scored_rows(design, model, rows, options)[0]


def scored_rows(design: Design, model: Linear, rows: np.ndarray, options: Options) -> tuple[np.ndarray, np.ndarray]:
    """Per row in ``rows``: the probability of its highest item, and the language that item reads as
    (its nearest center, as the detector tells it at scan time; the row's own without centers)."""
    items = np.flatnonzero(np.isin(design.owner, rows))
    z = model.logits(design.matrix(items, options.char_weight, model.centers))
    order = np.lexsort((z, design.owner[items]))  # by row, then by logit: each row's best item last
    last = np.r_[np.flatnonzero(np.diff(design.owner[items][order])), len(order) - 1]
    best_item = np.full(design.n_rows, -1)
    best_item[design.owner[items][order][last]] = items[order][last]
    best = np.full(design.n_rows, -np.inf)
    best[design.owner[items][order][last]] = z[order][last]
    if model.centers is None:
        langs = design.lang[best_item[rows]]
    else:
        names = list(model.centers)
        stack = np.stack(list(model.centers.values()))
        e5 = design.e5[best_item[rows]]
        langs = np.asarray(names)[np.argmin(((e5[:, None, :] - stack[None, :, :]) ** 2).sum(axis=2), axis=1)]
    return 1.0 / (1.0 + np.exp(-best[rows])), langs


def language_cuts(benign_scores: np.ndarray, benign_langs: np.ndarray, max_fpr: float) -> dict[str, float]:
    """Per language (as the lines read: their nearest center), the lowest threshold with at most
    ``max_fpr`` of its benign lines at or above it; a language without benign lines gets the highest."""
    cuts = {
        lang: choose_threshold(benign_scores[benign_langs == lang], benign_langs[benign_langs == lang], max_fpr)
        for lang in sorted(set(benign_langs.tolist()))
    }
    strictest = max(cuts.values())
    return {lang: cuts.get(lang, strictest) for lang in (*LANGS, "other")}


def choose_threshold(
    benign_scores: np.ndarray, benign_langs: np.ndarray, max_fpr: float, *, per_language: bool = True
) -> float:
    """The lowest threshold with at most ``max_fpr`` of benign lines at or above it in every
    language (or, without ``per_language``, over all of them)."""
    if not per_language:
        benign_langs = np.zeros(len(benign_langs), dtype=int)
    worst = 0.0
    for lang in sorted(set(benign_langs.tolist())):
        scores = np.sort(benign_scores[benign_langs == lang])
        allowed = math.floor(max_fpr * len(scores))
        cut = scores[len(scores) - allowed - 1]
        worst = max(worst, float(np.nextafter(cut, 1.0)))
    return min(max(worst, 1e-6), 1 - 1e-6)


def out_of_fold(
    design: Design,
    y_rows: np.ndarray,
    rows: np.ndarray,
    sources: np.ndarray,
    options: Options,
    fit: Fit,
    groups: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Scores of ``rows`` by models that never saw the row's own source (folds grouped by source), or
    its own group (``options.inner_by == "group"``: template variants together); and the language
    each row's highest window reads as (its nearest center), for thresholds per language."""
    from sklearn.model_selection import GroupKFold

    if groups is None:
        groups = sources
    names = sources[rows] if options.inner_by == "source" else groups[rows]
    folds = min(options.inner_folds, len(set(names.tolist())))
    out = np.zeros(len(rows))
    langs = np.empty(len(rows), dtype=object)
    for train, test in GroupKFold(n_splits=folds).split(rows, y_rows[rows], names):
        model = fit_rows(design, y_rows, rows[train], options, fit)
        out[test], langs[test] = scored_rows(design, model, rows[test], options)
    return out, langs.astype(str)


@dataclass
class SourceResult:
    source: str
    threshold: float
    attacks: int
    benign: int
    recall: float | None
    fpr: float | None
    train_sources: list[str] = field(default_factory=list)


def leave_one_source_out(
    rows: list[dict[str, Any]],
    design: Design,
    options: Options,
    *,
    fit: Fit | None = None,
    on_source: Callable[[str], None] | None = None,
) -> tuple[list[SourceResult], np.ndarray, np.ndarray]:
    """For each source: fit on the others, threshold from the others' out-of-fold scores, score it.

    Returns the per-source results, every row's left-out score and the threshold each row was
    judged at."""
    fit = fit or (lambda x, y, w: fit_logistic(x, y, w, options.c))
    y_rows = np.asarray([r["label"] == "attack" for r in rows], dtype=int)
    sources = np.asarray([r["source"] for r in rows])
    groups = np.asarray([f"{r['source']}/{r.get('group', '')}" for r in rows])
    langs = np.asarray([lang_bucket(r["lang"]) for r in rows])
    scores = np.zeros(len(rows))
    thresholds = np.zeros(len(rows))
    results: list[SourceResult] = []
    for name in sorted(set(sources.tolist())):
        held = np.flatnonzero(sources == name)
        train = np.flatnonzero(sources != name)
        oof, oof_langs = out_of_fold(design, y_rows, train, sources, options, fit, groups)
        benign = y_rows[train] == 0
        model = fit_rows(design, y_rows, train, options, fit)
        scores[held], read_as = scored_rows(design, model, held, options)
        if options.language_thresholds:
            cuts = language_cuts(oof[benign], oof_langs[benign], options.max_fpr)
            thresholds[held] = [cuts[lang] for lang in read_as]
            threshold = max(cuts.values())
        else:
            threshold = choose_threshold(
                oof[benign], langs[train][benign], options.max_fpr, per_language=options.per_language
            )
            thresholds[held] = threshold
        flagged = scores[held] >= thresholds[held]
        att = y_rows[held] == 1
        results.append(
            SourceResult(
                name,
                threshold,
                int(att.sum()),
                int((~att).sum()),
                float(flagged[att].mean()) if att.any() else None,
                float(flagged[~att].mean()) if (~att).any() else None,
                sorted(set(sources[train].tolist())),
            )
        )
        log.info("left out %s: threshold %.3f, recall %s, FPR %s", name, threshold, results[-1].recall, results[-1].fpr)
        if on_source:
            on_source(name)
    return results, scores, thresholds


def pooled(rows: list[dict[str, Any]], scores: np.ndarray, thresholds: np.ndarray) -> dict[str, Any]:
    """Recall and FPR pooled over all left-out scores, per language, per category and per both
    (benign requests per language is one of the issue's targets)."""
    cells: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r, s, t in zip(rows, scores, thresholds, strict=True):
        hit = int(s >= t)
        lang = lang_bucket(r["lang"])
        for key in ("all", f"lang:{lang}", f"category:{r['category']}", f"{lang}/{r['category']}"):
            cell = cells[f"{key}:{r['label']}"]
            cell[0] += hit
            cell[1] += 1
    out: dict[str, Any] = {}
    for key, (hit, n) in sorted(cells.items()):
        metric = "fpr" if key.endswith(":benign") else "recall"
        out[key] = {"n": n, "flagged": hit, metric: round(hit / n, 4)}
    return out


def fit_all(
    rows: list[dict[str, Any]], design: Design, options: Options
) -> tuple[Linear, float | dict[str, float], np.ndarray, np.ndarray]:
    """The model to ship: fit on every source, its threshold from out-of-fold scores grouped by
    source (as each left-out run chose its own). Returns the model, the threshold (one per
    language with ``language_thresholds``), the out-of-fold scores and the threshold each was judged at."""
    y_rows = np.asarray([r["label"] == "attack" for r in rows], dtype=int)
    sources = np.asarray([r["source"] for r in rows])
    langs = np.asarray([lang_bucket(r["lang"]) for r in rows])
    every = np.arange(len(rows))
    fit: Fit = lambda x, y, w: fit_logistic(x, y, w, options.c)  # noqa: E731
    groups = np.asarray([f"{r['source']}/{r['group']}" for r in rows])
    oof, oof_langs = out_of_fold(design, y_rows, every, sources, options, fit, groups)
    benign = y_rows == 0
    model = fit_rows(design, y_rows, every, options, fit)
    if options.language_thresholds:
        cuts = language_cuts(oof[benign], oof_langs[benign], options.max_fpr)
        return model, cuts, oof, np.asarray([cuts[lang] for lang in oof_langs])
    threshold = choose_threshold(oof[benign], langs[benign], options.max_fpr, per_language=options.per_language)
    return model, threshold, oof, np.full(len(rows), threshold)


def head_json(model: Linear, threshold: float | dict[str, float], options: Options, e5_dim: int) -> dict[str, Any]:
    """The query head as ``guardrails.injection.Head.from_dict`` reads it, the threshold folded
    into the intercept (0.5 is the operating point; one threshold per language is folded into a
    per-center offset) and the n-gram weights stored sparsely."""
    one = threshold if isinstance(threshold, float) else None
    out: dict[str, Any] = {
        "coef": [round(float(x), 6) for x in model.coef[:e5_dim]],
        "intercept": model.intercept - (_logit(one) if one is not None else 0.0),
        "threshold": 0.5,
    }
    if isinstance(threshold, dict):
        if model.centers is None:
            raise ValueError("a threshold per language needs the language centers (center_languages)")
        out["offsets"] = [round(-_logit(threshold[lang]), 6) for lang in model.centers]
    tail = e5_dim
    if options.cues:
        out["cues"] = {
            "names": list(CUE_NAMES),
            "coef": [round(float(x) * options.cue_weight, 6) for x in model.coef[tail : tail + len(CUE_NAMES)]],
        }
        tail += len(CUE_NAMES)
    if options.chars:
        char = model.coef[tail:] * options.char_weight
        nz = np.flatnonzero(np.abs(char) >= 1e-5)
        out["char"] = {
            "n_features": options.n_features,
            "ngrams": [2, 5],
            "indices": nz.tolist(),
            "values": [round(float(x), 5) for x in char[nz]],
        }
        out["clauses"] = options.clauses
    if model.centers is not None:
        out["centers"] = [[round(float(x), 6) for x in c] for c in model.centers.values()]
    return out
