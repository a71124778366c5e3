"""Semantic answer cache: what the graph needs from it, whatever stores it.

A question close enough (cosine of the question vectors) to one answered before gets that
answer at once. Entries live in *scopes*: the caller builds the scope string from everything
that makes two answers comparable (collection and index version, filters, mode, language,
depth, user or tenant, access groups, edited prompts), so a new index version, other filters or
another user simply look in another scope and never see its answers.

The implementation is GPTCache over SQLite, or Postgres with ``DATABASE_URL``
(``components/stores/gptcache_backend.py``); the graph calls only this protocol.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CacheEntry:
    """A cached answer as a lookup returns it."""

    question: str
    value: dict[str, Any]
    scope: str
    similarity: float
    created_at: float


@dataclass(frozen=True)
class CacheStats:
    hits: int
    misses: int
    size: int

    def as_dict(self) -> dict[str, int]:
        return {"hits": self.hits, "misses": self.misses, "size": self.size}


class CacheBackend(Protocol):
    """What the graph needs from a semantic cache."""

    def lookup(self, vector: np.ndarray, *, scope: str, threshold: float | None = None) -> CacheEntry | None: ...

    def store(self, vector: np.ndarray, *, scope: str, question: str, value: dict[str, Any]) -> None: ...

    def stats(self) -> CacheStats: ...

    def clear(self, scope: str | None = None) -> int: ...

    def describe(self) -> dict[str, Any]:
        """What ``rag cache stats`` shows: where it lives, entries and scopes."""
        ...
