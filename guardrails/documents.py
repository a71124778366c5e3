"""Documents are input too: an injection score per chunk at ingestion, a screen on passages at question time.

A note, a PDF or a web page can carry instructions aimed at the assistant ("ignore your
instructions and …" in an HTML comment, a fake 【システム】 block, a "tool output" section).
Ingestion scores every chunk once (:func:`chunk_scores`: the curated patterns over the chunk's
normalised views, and the injection classifier over the chunk's own passage vector, so scoring
costs no extra embedding); the score travels in the chunk's payload as ``injection``. At
question time :func:`screen` keeps a passage from generation when any of its chunks scored at
or above the threshold, and says which, so the graph can put it in ``warnings``. Web pages have
no payload: they are scanned whole when fetched (:func:`score_text`).

What crosses the threshold is policy (``POLICY.document_injection_threshold`` for stored chunks,
``POLICY.web_page_injection_threshold`` for fetched pages).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from guardrails.addressed import find_addressed_instruction
from guardrails.injection import passage_probability, text_probability
from guardrails.normalize import without_quotations
from guardrails.patterns import find_injection
from guardrails.policy import POLICY

log = logging.getLogger(__name__)

#: payload key of a chunk's injection score (0..1), written at ingestion
SCORE_KEY = "injection"

PassageProbability = Callable[[np.ndarray, Sequence[str]], np.ndarray]
"""Passage vectors (n x dim, the index's own embedding) and the chunks' texts as embedded ->
probability of injected instructions."""
TextScan = Callable[[str], float]
"""A whole text -> probability of injected instructions (embeds as it needs)."""


def pattern_score(text: str) -> float:
    """1.0 when a curated injection pattern matches the text outside its quotations (or a payload
    decoded from it), or a sentence tells the AI that reads the text what to answer
    (:mod:`guardrails.addressed`). A document that quotes an attack (a security note: „Ignoriere alle
    vorherigen Anweisungen“ is a known trick) mentions it; one that plants an instruction says it."""
    said = without_quotations(text)
    return 1.0 if find_injection(said) is not None or find_addressed_instruction(said) is not None else 0.0


def chunk_scores(
    texts: Sequence[str], vectors: np.ndarray | None, *, classifier: PassageProbability | None = None
) -> list[float]:
    """The injection score of each chunk: the higher of the patterns' and the classifier's.

    ``vectors`` are the chunks' passage vectors as the index stores them (the classifier also reads
    the texts' cue families); without a classifier (or vectors from another model) the patterns
    alone decide.
    """
    scores = [pattern_score(t) for t in texts]
    if classifier is not None and vectors is not None and len(texts):
        probs = classifier(np.asarray(vectors, dtype=np.float32), texts)
        scores = [max(s, float(p)) for s, p in zip(scores, probs, strict=True)]
    return [round(s, 4) for s in scores]


def score_text(text: str, *, scan: TextScan | None = None) -> float:
    """A fetched text's score (a web page): the patterns, and the classifier's scan when given."""
    score = pattern_score(text)
    if score < 1.0 and scan is not None:
        score = max(score, scan(text))
    return round(score, 4)


def rescored(stored: float | None, text: str) -> float | None:
    """A stored chunk's score at question time: what ingestion wrote, or 1.0 when a sentence of its
    text addresses the AI that reads it (:mod:`guardrails.addressed`, about a millisecond a chunk), so
    a store scored without that rule gets it without being ingested again. The curated patterns, ten
    times slower over a passage, are read at ingestion only."""
    if stored is not None and stored >= 1.0:
        return stored
    return 1.0 if text and find_addressed_instruction(without_quotations(text)) is not None else stored


def withholds(score: float | None, threshold: float = POLICY.document_injection_threshold) -> bool:
    """Whether a passage that scored ``score`` is kept from generation. An unscored one (a chunk from
    an index built before scores existed) passes: its text was checked by nothing, which the warning
    of ``rag status`` says, not by blocking every answer of an old index."""
    return score is not None and score >= threshold


@dataclass(frozen=True)
class Withheld:
    """A passage kept from generation and why."""

    label: str
    score: float


def screen(
    items: Sequence[tuple[str, float | None]], *, threshold: float = POLICY.document_injection_threshold
) -> tuple[list[int], list[Withheld]]:
    """Which of ``items`` (label, score; None = never scored) may reach generation
    (:func:`withholds`). Returns the indexes kept, in order, and the ones withheld."""
    kept: list[int] = []
    withheld: list[Withheld] = []
    for i, (label, score) in enumerate(items):
        if score is not None and withholds(score, threshold):
            withheld.append(Withheld(label, score))
            log.warning("passage withheld from generation: %s (injection score %.2f)", label, score)
        else:
            kept.append(i)
    return kept, withheld


def passage_classifier(model_id: str) -> PassageProbability | None:
    """The injection classifier over passage vectors of ``model_id``, or None for another model.

    The classifier was trained on one embedding model's vectors; an index embedded by another
    (a sentence-transformers or Ollama backend) is scored by the patterns alone.
    """
    return passage_probability(model_id)


def text_scan(embedder: Any) -> TextScan:
    """The injection classifier's whole-text scan (windows over every view of the text)."""
    return text_probability(embedder)
