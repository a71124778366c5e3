"""The record every retriever returns and fusion joins: one chunk with its score and its story.

Each hit carries every retriever's rank and raw score, so debug output and Studio can show why
a chunk ranks where it does. In graph state a hit travels as its ``HitRecord`` dict (state must
serialise for checkpoints); ``Hit`` is the in-process form.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NotRequired

from typing_extensions import TypedDict

#: what fusion and grouping read of a candidate: retrievers return only these payload keys for
#: their long lists (a full payload costs the embedded store 4x the search at 500 candidates),
#: and the chunks a run keeps get the rest afterwards (``hydrate``)
LISTED = ("doc_id", "language")
#: a key every stored chunk's full payload has, and a listed one lacks
_FULL_KEY = "text"


class HitRecord(TypedDict):
    """A hit as graph state holds it (JSON-serialisable)."""

    point_id: str
    score: float
    payload: dict[str, Any]
    ranks: dict[str, int]
    """Rank per retriever that found the chunk (1 = first)."""
    scores: dict[str, float]
    """Raw score per retriever that found the chunk."""
    fused_score: NotRequired[float]
    """Fused candidates only: the fusion method's own score, before ``score`` was scaled to 0..1."""


@dataclass
class Hit:
    """One chunk found by one retriever (or fused)."""

    point_id: str
    score: float
    payload: dict[str, Any]
    ranks: dict[str, int] = field(default_factory=dict)
    scores: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> HitRecord:
        return {
            "point_id": self.point_id,
            "score": self.score,
            "payload": self.payload,
            "ranks": self.ranks,
            "scores": self.scores,
        }

    @classmethod
    def from_dict(cls, d: HitRecord | dict[str, Any]) -> Hit:
        return cls(
            d["point_id"],
            float(d["score"]),
            d.get("payload") or {},
            dict(d.get("ranks") or {}),
            dict(d.get("scores") or {}),
        )


def hydrate(hits: Sequence[Hit], payloads: Callable[[list[str]], dict[str, dict[str, Any]]]) -> list[Hit]:
    """``hits`` with their full payloads: those retrieved with ``LISTED`` keys only are read by id
    (``payloads``, e.g. ``QdrantIndex.payloads``) in one request; hits that have theirs cost nothing."""
    missing = [h.point_id for h in hits if _FULL_KEY not in h.payload]
    if not missing:
        return list(hits)
    found = payloads(missing)
    return [h if h.point_id not in found else replace(h, payload=found[h.point_id]) for h in hits]
