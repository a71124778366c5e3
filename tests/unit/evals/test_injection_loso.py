"""Leave one source out never lets the scored source reach the fit or the threshold.

No model is loaded: a tiny embedding function maps each text to a fixed direction by its first
word, so what a model could learn from the scored source is known in advance. Source ``S`` is
built so that a model fit with it would catch its attacks, and a threshold chosen with it would
rise above its benign lines; judged honestly, neither happens.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import sparse

from evals.injection_loso import Linear, Options, build_design, fit_logistic, leave_one_source_out

DIRECTIONS = {"attack": 0, "benign": 1, "novel": 2}


def embed(texts: list[str]) -> np.ndarray:
    """``attack`` and ``benign`` lines on their own axes; ``novel`` ones look more benign than
    benign, plus an axis only source S's attacks have."""
    out = np.zeros((len(texts), 3), dtype=np.float32)
    for i, t in enumerate(texts):
        word = t.split()[0]
        if word == "novel":
            out[i, DIRECTIONS["benign"]], out[i, DIRECTIONS["novel"]] = 1.2, 1.0
        else:
            out[i, DIRECTIONS[word]] = 1.0
    return out


def rows() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(source: str, label: str, word: str, n: int) -> None:
        for i in range(n):
            out.append(
                {"text": f"{word} {source} {i}", "label": label, "lang": "en", "category": "c", "source": source}
            )

    for src in ("A", "B", "C"):
        add(src, "attack", "attack", 20)
        add(src, "benign", "benign", 20)
    # S: its attacks look benign but for an axis no other source's lines have ("novel"); learnt
    # from S they would be caught, unseen they score as benign. Its benign lines point where only
    # attacks do: a threshold chosen with S's benign lines would be pushed above every attack's score.
    add("S", "attack", "novel", 20)
    add("S", "benign", "attack", 20)
    return out


@pytest.mark.parametrize("recipe", ["plain", "shipped", "per-language"])
def test_the_scored_source_is_never_fit_nor_used_for_its_threshold(recipe: str) -> None:
    data = rows()
    # "shipped": the recipe the trainer uses across sources (language centers from the training
    # rows' benign windows, each line weighing 1); "per-language": with a threshold per language
    centered = recipe != "plain"
    options = Options(
        chars=False,
        inner_folds=3,
        center_languages=centered,
        row_weights=centered,
        language_thresholds=recipe == "per-language",
    )
    design = build_design(data, embed, options)
    saw_s: list[bool] = []  # per fit: did its training matrix hold S's attacks?
    ends: dict[str, int] = {}  # per scored source: how many fits had been made when it was done
    sources = np.asarray([r["source"] for r in data])

    def spying_fit(x: sparse.csr_matrix, y: np.ndarray, w: np.ndarray) -> Linear:
        # the rows reach the fit as a matrix: the "novel" axis is S's attacks and nothing else
        saw_s.append(bool(np.asarray(x[:, DIRECTIONS["novel"]].todense()).any()))
        return fit_logistic(x, y, w, c=4.0)

    def done(name: str) -> None:
        ends[name] = len(saw_s)

    results, scores, thresholds = leave_one_source_out(data, design, options, fit=spying_fit, on_source=done)
    by = {r.source: r for r in results}
    s = by["S"]
    assert "S" not in s.train_sources
    # a model that had seen S's "novel" attacks would score them high; one that has not, cannot
    assert s.recall == 0.0
    # the threshold came from A, B and C's benign lines (all well below attack scores), not from S's
    # benign lines, which look exactly like attacks: every one of them is flagged
    assert s.fpr == 1.0
    held = sources == "S"
    assert (
        thresholds[held] < scores[(sources == "A") & np.asarray([r["label"] == "attack" for r in data])].min()
    ).all()
    # no fit made while S was the scored one (inner folds for its threshold, final model) saw S,
    # and the fits for the other sources did (the spy would notice a leak)
    order = sorted(ends, key=ends.__getitem__)
    start = 0 if order[0] == "S" else ends[order[order.index("S") - 1]]
    assert ends["S"] - start == options.inner_folds + 1
    assert not any(saw_s[start : ends["S"]])
    assert any(saw_s[:start]) or any(saw_s[ends["S"] :])


@pytest.mark.parametrize("chars", [False, True])
def test_other_sources_are_judged_with_models_fit_on_the_rest(chars: bool) -> None:
    data = [r for r in rows() if r["source"] != "S"]
    options = Options(chars=chars, clauses=chars, inner_folds=3, n_features=1 << 10)
    results, _, _ = leave_one_source_out(data, build_design(data, embed, options), options)
    by = {r.source: r for r in results}
    for src in ("A", "B", "C"):
        assert (by[src].recall, by[src].fpr) == (1.0, 0.0)
        assert by[src].train_sources == sorted({"A", "B", "C"} - {src})
