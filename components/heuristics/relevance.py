"""The score users see: the probability that a result is relevant, the same scale for every query.

Fused and reranked scores only order one query's results (convex fusion min-max-scales each
list, so the best hit of any query, even of ``xyznonexistent123``, scores 1.0). What a person
reads across queries is a probability instead:

1. each result's p(relevant) from its dense cosine and its idf-weighted coverage of the question's
   terms, by the context-relevance model the embedding model carries
   (``components/models/calibration.py``, a logistic fit on SciFact train and JSQuAD qrels; the
   same model grades context for Q&A, so search and Q&A agree on what "relevant" means);
2. made non-increasing along the ranker's order by isotonic regression (pool adjacent
   violators), so the order stays the ranker's (ranking by p itself loses 0.04 nDCG@10 on
   SciFact) while every score is as close to its own p as that order allows, and a minimum score
   cuts the list at one place instead of punching holes in it.

A result dense search did not return is given the lowest cosine dense search did return (an upper
bound of its own); with no cosine at all (dense retrieval down) the lexical-only model grades.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from components.heuristics.extractive import term_coverage, term_weights
from components.heuristics.grading import chunk_relevance, chunk_text
from components.models.calibration import Calibration

#: the default least relevance a search result needs: more likely relevant than not, the same bar
#: as Q&A's context grade (figures in docs/decisions/0014-calibrated-search-scores.md)
MIN_SCORE = 0.5


def coverages(
    phrasings: Sequence[str],
    results: Sequence[Mapping[str, Any]],
    *,
    tokenize: Callable[[str], list[str]],
    idf: Mapping[str, float] | None,
) -> list[float]:
    """Each result's idf-weighted share of the question's terms it holds (``hit_to_result``-shaped
    rows: ``text``, ``title``). With several phrasings (multi-query search, Q&A's rewrites) a
    result counts as covered by the phrasing that covers it best: it was found for any of them."""
    asked = [(terms, term_weights(terms, idf)) for terms in (tokenize(q) for q in dict.fromkeys(phrasings) if q)]
    asked = [(terms, w) for terms, w in asked if w]
    out = []
    for r in results:
        text = chunk_text(r)
        have = set(tokenize(text))
        out.append(
            max((term_coverage(t, text, tokenize=tokenize, weights=w, text_terms=have) for t, w in asked), default=0.0)
        )
    return out


def relevance(
    phrasings: Sequence[str],
    results: Sequence[Mapping[str, Any]],
    *,
    tokenize: Callable[[str], list[str]],
    idf: Mapping[str, float] | None,
    calibration: Calibration,
    covered: Sequence[float] | None = None,
) -> list[float]:
    """Each result's own p(relevant) (``hit_to_result``-shaped rows: ``retriever_scores``, ``text``),
    from its dense cosine and its ``coverages`` (given as ``covered`` when the caller has them)."""
    dense: list[float | None] = []
    for r in results:
        d = (r.get("retriever_scores") or {}).get("dense")
        dense.append(float(d) if isinstance(d, (int, float)) else None)
    present = [d for d in dense if d is not None]
    bound = min(present) if present else None
    if covered is None:
        covered = coverages(phrasings, results, tokenize=tokenize, idf=idf)
    return [
        chunk_relevance(d if d is not None else bound, cov, calibration) for d, cov in zip(dense, covered, strict=True)
    ]


def along_ranking(probabilities: Sequence[float]) -> list[float]:
    """The closest non-increasing sequence (least squares) to ``probabilities`` in rank order.

    Pool adjacent violators, the textbook algorithm behind scikit-learn's ``IsotonicRegression``
    (the unit tests hold the two equal): written out here because importing scikit-learn's
    isotonic module costs 0.5–1 s of a one-shot ``rag search`` on this machine.
    """
    blocks: list[list[float]] = []  # [mean, size] of pooled runs, each mean below the previous one
    for p in probabilities:
        blocks.append([float(p), 1.0])
        while len(blocks) > 1 and blocks[-1][0] > blocks[-2][0]:
            mean, size = blocks.pop()
            prev = blocks[-1]
            prev[0] = (prev[0] * prev[1] + mean * size) / (prev[1] + size)
            prev[1] += size
    return [min(1.0, max(0.0, mean)) for mean, size in blocks for _ in range(int(size))]
