"""The score users see: calibrated, non-increasing along the ranking, the same scale for every query."""

from __future__ import annotations

from typing import Any

import pytest

from components.heuristics.grading import chunk_relevance
from components.heuristics.relevance import along_ranking, relevance
from components.models.calibration import MULTILINGUAL_E5_SMALL as CAL


def tokenize(text: str) -> list[str]:
    return [w.strip("?.,").lower() for w in text.split() if len(w.strip("?.,")) > 2]


def row(text: str, dense: float | None = None, title: str = "") -> dict[str, Any]:
    scores = {} if dense is None else {"dense": dense}
    return {"text": text, "title": title, "retriever_scores": scores}


IDF = {"monstera": 3.0, "water": 2.0, "watering": 2.0, "soil": 2.5, "miso": 3.0, "soup": 2.0}


def test_a_close_chunk_scores_high_and_an_unrelated_one_low() -> None:
    q = ["When should I water the monstera?"]
    rows = [row("Water the monstera when the soil is dry.", 0.89), row("Miso soup with tofu.", 0.76)]
    good, bad = relevance(q, rows, tokenize=tokenize, idf=IDF, calibration=CAL)
    assert good > 0.9 and bad < 0.05


def test_a_chunk_dense_search_missed_gets_the_lowest_cosine_it_returned() -> None:
    rows = [row("Water the monstera.", 0.85), row("Water the monstera.", 0.83), row("Water the monstera.")]
    ps = relevance(["water monstera"], rows, tokenize=tokenize, idf=IDF, calibration=CAL)
    assert ps[2] == pytest.approx(ps[1])


def test_without_any_cosine_the_lexical_model_grades() -> None:
    ps = relevance(["water monstera"], [row("Water the monstera.")], tokenize=tokenize, idf=IDF, calibration=CAL)
    assert ps == [pytest.approx(chunk_relevance(None, 1.0, CAL))]


def test_the_title_counts_as_the_chunks_words() -> None:
    plain = relevance(["monstera soil"], [row("Keep the soil dry.", 0.84)], tokenize=tokenize, idf=IDF, calibration=CAL)
    titled = relevance(
        ["monstera soil"],
        [row("Keep the soil dry.", 0.84, title="Monstera")],
        tokenize=tokenize,
        idf=IDF,
        calibration=CAL,
    )
    assert titled[0] > plain[0]


def test_any_phrasing_may_cover_a_result() -> None:
    rows = [row("Miso soup with tofu.", 0.84)]
    alone = relevance(["water monstera"], rows, tokenize=tokenize, idf=IDF, calibration=CAL)
    both = relevance(["water monstera", "miso soup"], rows, tokenize=tokenize, idf=IDF, calibration=CAL)
    assert both[0] > 0.5 > alone[0]


@pytest.mark.parametrize(
    ("ps", "expected"),
    [
        ([0.9, 0.5, 0.1], [0.9, 0.5, 0.1]),
        ([0.2, 0.8, 0.1], [0.5, 0.5, 0.1]),  # the violators are pooled: order kept, scores sorted
        ([0.3], [0.3]),
        ([], []),
    ],
)
def test_scores_follow_the_ranking(ps: list[float], expected: list[float]) -> None:
    assert along_ranking(ps) == pytest.approx(expected)


def test_pooling_matches_scikit_learns_isotonic_regression() -> None:
    import numpy as np
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(7)
    for n in (2, 5, 30, 200):
        ps = rng.random(n)
        expected = IsotonicRegression(increasing=False).fit_transform(np.arange(n), ps)
        assert along_ranking(list(ps)) == pytest.approx(list(expected), abs=1e-12)
