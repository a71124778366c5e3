"""The ranking policy of the rank step, with or without a cross-encoder: freshness and age limits.

Each factor reads the candidates' payloads and the run's knobs (Context fields ``freshness_boost``,
``freshness_half_life_days``, ``max_age_days``, ``max_age_keeps``) and says what it did, so that
``--debug`` can show it. Both act only on dated chunks (a note's ``created`` date, a record's
``metadata.year``); a collection without dates (SciFact, JSQuAD) ranks exactly as without them.

- **Freshness**: a dated chunk's ranking score gains at most ``boost`` times the spread of the
  candidates' scores, halving every ``half_life_days`` of the document's age. It moves near-ties,
  never a clearly better match, and the score people see (the probability of relevance) is not
  touched: only the order.
- **Maximum age**: in Q&A, chunks of documents older than ``max_age_days`` are left out of the
  context (or, with ``max_age_keeps``, kept and named in a warning); search shows each result's age.
- **Hot and cold**: in a search of several collections, a hot collection's result wins against a
  cold one's when their scores are within ``tier_margin``.
- **Feedback**: in Q&A, the asker's own verdicts on earlier answers move the documents behind them:
  "bad" with a reason that says the answer was wrong or outdated demotes, "good" promotes half as
  much, each verdict halving every ``feedback_half_life_days``, the sum bounded, and the move at
  most ``feedback_boost`` times the spread, as freshness. Never another user's verdicts.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from components.retrieval.hits import HitRecord

DAY_SECONDS = 86400.0

#: a collection's tier (``rag ingest --tier``, kept in its metadata): in a search of several
#: collections a hot one wins near-ties against a cold one (an archive)
TIERS = ("hot", "cold")


def tier_of(metadata: Mapping[str, Any]) -> str:
    """A collection's tier from its metadata (hot unless marked cold)."""
    return "cold" if metadata.get("tier") == "cold" else "hot"


def tiered(results: Sequence[Mapping[str, Any]], tiers: Mapping[str, str], margin: float) -> list[Mapping[str, Any]]:
    """Results of several collections best first: by score, a hot collection's counting ``margin``
    more, so that it wins a near-tie against a cold one and never a clear loss."""

    def key(r: Mapping[str, Any]) -> float:
        return float(r["score"]) + (margin if tiers.get(str(r.get("collection"))) != "cold" else 0.0)

    return sorted(results, key=lambda r: -key(r))


def document_date(payload: Mapping[str, Any]) -> date | None:
    """When the chunk's document was written: its ``created`` date, else its record's year (1 January)."""
    ts = payload.get("created_ts")
    if isinstance(ts, int | float):
        return datetime.fromtimestamp(float(ts), tz=UTC).date()
    meta = payload.get("metadata")
    year = meta.get("year") if isinstance(meta, Mapping) else None
    if isinstance(year, int) or (isinstance(year, str) and year.isdigit() and len(year) == 4):
        return date(int(year), 1, 1)
    return None


def age_days(payload: Mapping[str, Any], today: date) -> int | None:
    """The document's age in whole days (None when it has no date; 0 for one dated in the future)."""
    written = document_date(payload)
    return max(0, (today - written).days) if written else None


#: a "bad" verdict's reason that says the sources were at fault (not "too long"): their documents are demoted
_AT_FAULT = re.compile(
    r"wrong|incorrect|false|outdated|out of date|stale|old|間違|誤り|違う|古い|最新では", re.IGNORECASE
)


@dataclass(frozen=True)
class Adjustment:
    """What the policy did to one candidate (for ``--debug``)."""

    chunk_id: str
    age_days: int
    boost: float
    factor: str = "freshness"


@dataclass(frozen=True)
class Verdict:
    """An asker's verdict on an answer, as ranking reads it: the documents behind it, when, and how."""

    doc_ids: tuple[str, ...]
    good: bool
    reason: str
    day: date


def feedback_weights(verdicts: Iterable[Verdict], *, today: date, half_life_days: float) -> dict[str, float]:
    """Per document, in [-1, 0.5]: each "bad, wrong/outdated" verdict counts -1, each "good" +0.5,
    halving every ``half_life_days`` of its age; other "bad" reasons (too long) count nothing."""
    out: dict[str, float] = {}
    for v in verdicts:
        sign = 0.5 if v.good else (-1.0 if _AT_FAULT.search(v.reason or "") else 0.0)
        if not sign:
            continue
        weight = sign * 0.5 ** (max(0, (today - v.day).days) / half_life_days)
        for doc in dict.fromkeys(v.doc_ids):
            out[doc] = out.get(doc, 0.0) + weight
    return {doc: max(-1.0, min(0.5, w)) for doc, w in out.items()}


def by_feedback(
    candidates: Sequence[HitRecord], weights: Mapping[str, float], *, boost: float
) -> tuple[list[HitRecord], list[Adjustment]]:
    """The candidates re-ordered with each judged document's move (``boost`` × spread × its weight)."""
    if boost <= 0 or not weights or len(candidates) < 2:
        return list(candidates), []
    scores = [float(h["score"]) for h in candidates]
    spread = max(scores) - min(scores)
    adds = {
        i: boost * spread * weights[str(h["payload"].get("doc_id"))]
        for i, h in enumerate(candidates)
        if str(h["payload"].get("doc_id")) in weights
    }
    return _moved(candidates, adds, "feedback")


def _moved(
    candidates: Sequence[HitRecord], adds: Mapping[int, float], factor: str, ages: Mapping[int, int] | None = None
) -> tuple[list[HitRecord], list[Adjustment]]:
    """New records with ``adds`` added to their scores (and named among their ``scores``), re-sorted
    stably; the adjustments made, for ``--debug``."""
    if not adds:
        return list(candidates), []
    out: list[HitRecord] = []
    made: list[Adjustment] = []
    for i, h in enumerate(candidates):
        if i not in adds:
            out.append(h)
            continue
        r = h.copy()
        r["scores"] = {**h.get("scores", {}), factor: round(adds[i], 6)}
        r["score"] = float(h["score"]) + adds[i]
        out.append(r)
        age = (ages or {}).get(i, -1)
        made.append(Adjustment(str(h["payload"].get("chunk_id")), age, round(adds[i], 6), factor))
    position = {id(h): i for i, h in enumerate(out)}
    return sorted(out, key=lambda h: (-h["score"], position[id(h)])), made


def freshen(
    candidates: Sequence[HitRecord],
    *,
    boost: float,
    half_life_days: float,
    today: date,
    relevance: Callable[[Sequence[HitRecord]], Sequence[float]] | None = None,
) -> tuple[list[HitRecord], list[Adjustment]]:
    """The candidates re-ordered with each dated one's bounded freshness boost added to its score.

    ``relevance`` gives each candidate's own p(relevant) (``components/heuristics/relevance.py``),
    asked only when a candidate is dated: the boost is weighed by it, so a newer document the
    question is not about gains nothing. Fusion gives the top of each phrasing's list the same
    score, so a question and its translation can tie the note that answers with one that names its
    subject in passing; unweighed, the boost would hand such ties to the newer note.
    Returns new records (the state's stay as the rank step got them) and the adjustments made;
    the input order and scores unchanged when nothing is dated or the boost is off."""
    if boost <= 0 or half_life_days <= 0 or len(candidates) < 2:
        return list(candidates), []
    scores = [float(h["score"]) for h in candidates]
    spread = max(scores) - min(scores)
    if spread <= 0:
        return list(candidates), []
    ages = {i: a for i, h in enumerate(candidates) if (a := age_days(h["payload"], today)) is not None}
    if not ages:
        return list(candidates), []
    weight = list(relevance(candidates)) if relevance is not None else [1.0] * len(candidates)
    adds = {i: boost * spread * weight[i] * 0.5 ** (a / half_life_days) for i, a in ages.items()}
    return _moved(candidates, adds, "freshness", ages)


def too_old(candidates: Sequence[HitRecord], *, max_age_days: int, today: date) -> list[int]:
    """Indexes of the candidates whose document is older than ``max_age_days`` (undated: never)."""
    if max_age_days <= 0:
        return []
    return [
        i for i, h in enumerate(candidates) if (age := age_days(h["payload"], today)) is not None and age > max_age_days
    ]
