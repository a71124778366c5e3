"""The record every retriever returns and fusion joins: one chunk with its score and its story.

Each hit carries every retriever's rank and raw score, so debug output and Studio can show why
a chunk ranks where it does. In graph state a hit travels as its ``HitRecord`` dict (state must
serialise for checkpoints); ``Hit`` is the in-process form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired

from typing_extensions import TypedDict


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
