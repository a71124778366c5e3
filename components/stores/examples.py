"""Answers users rated good, kept as examples for the LLM generator on similar questions.

A companion collection of the chunks' collection (``<collection>__examples``, on the same
client, embedded store or server): one point per good answer, its vector the question's query
embedding, its payload the question, the answer and the audience it was given to. A lookup
returns only examples of the same audience (tenant or user, and access groups), so an answer
drawn from passages one group may read never reaches another group's prompt.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import qdrant_edge as qe

from components.stores.edge_models import point
from components.stores.points import DENSE
from components.stores.qdrant import QdrantIndex

if TYPE_CHECKING:  # the embedder (and langchain-core under it) loads where it is used
    from components.models.embedders import Embedder

SUFFIX = "__examples"


@dataclass(frozen=True)
class Example:
    """A question rated good, its answer, and how close it is to the question at hand."""

    feedback_id: int
    question: str
    answer: str
    similarity: float


class ExampleIndex:
    def __init__(self, index: QdrantIndex, embedder: Embedder) -> None:
        self.index = index
        self.embedder = embedder

    def add(self, feedback_id: int, question: str, answer: str, *, audience: str, index_version: int | None) -> None:
        """Keep a good answer (the question embedded as a query, as questions are at search time)."""
        self.index.ensure(embedding_model=self.embedder.model_id, dim=self.embedder.dim)
        vector = self.embedder.encode_queries([question])[0]
        kept = point(
            str(uuid.uuid5(uuid.NAMESPACE_URL, f"feedback/{feedback_id}")),
            {DENSE: [float(x) for x in vector]},
            {
                "feedback_id": feedback_id,
                "question": question,
                "answer": answer,
                "audience": audience,
                "index_version": index_version,
            },
        )
        self.index.client.upsert(self.index.collection, points=[kept], wait=True)

    def similar(self, vector: Any, *, audience: str, threshold: float, limit: int) -> list[Example]:
        """Up to ``limit`` examples of ``audience`` at least ``threshold`` close, closest first."""
        if limit < 1 or not self.index.exists():
            return []
        only = qe.Filter(must=[qe.FieldCondition(key="audience", match=qe.MatchValue(audience))])
        hits = self.index.search(vector, limit=limit, query_filter=only)
        return [
            Example(int(h.payload["feedback_id"]), str(h.payload["question"]), str(h.payload["answer"]), float(h.score))
            for h in hits
            if h.payload and h.score >= threshold
        ]
