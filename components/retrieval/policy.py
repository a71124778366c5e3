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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from components.retrieval.hits import HitRecord

DAY_SECONDS = 86400.0


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


@dataclass(frozen=True)
class Adjustment:
    """What the policy did to one candidate (for ``--debug``)."""

    chunk_id: str
    age_days: int
    boost: float


def freshen(
    candidates: Sequence[HitRecord], *, boost: float, half_life_days: float, today: date
) -> tuple[list[HitRecord], list[Adjustment]]:
    """The candidates re-ordered with each dated one's bounded freshness boost added to its score.

    Returns new records (the state's stay as the rank step got them) and the adjustments made;
    the input order and scores unchanged when nothing is dated or the boost is off."""
    if boost <= 0 or half_life_days <= 0 or len(candidates) < 2:
        return list(candidates), []
    scores = [float(h["score"]) for h in candidates]
    spread = max(scores) - min(scores)
    if spread <= 0:
        return list(candidates), []
    out: list[HitRecord] = []
    made: list[Adjustment] = []
    for h in candidates:
        age = age_days(h["payload"], today)
        if age is None:
            out.append(h)
            continue
        add = boost * spread * 0.5 ** (age / half_life_days)
        r = h.copy()
        r["scores"] = {**h.get("scores", {}), "freshness": round(add, 6)}
        r["score"] = float(h["score"]) + add
        out.append(r)
        made.append(Adjustment(str(h["payload"].get("chunk_id")), age, round(add, 6)))
    if not made:
        return list(candidates), []
    position = {id(h): i for i, h in enumerate(out)}
    return sorted(out, key=lambda h: (-h["score"], position[id(h)])), made


def too_old(candidates: Sequence[HitRecord], *, max_age_days: int, today: date) -> list[int]:
    """Indexes of the candidates whose document is older than ``max_age_days`` (undated: never)."""
    if max_age_days <= 0:
        return []
    return [
        i for i, h in enumerate(candidates) if (age := age_days(h["payload"], today)) is not None and age > max_age_days
    ]
