"""Embed the current batch's chunks (title and section path included in the text) and score them
for injected instructions, so that the question-time screen costs nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
from langgraph.runtime import Runtime

from components.factory import Components
from components.ingestion.pipeline import embed_records
from graph.ingest_state import IngestContext, IngestState
from guardrails.documents import SCORE_KEY, chunk_scores, passage_classifier
from nodes.types import IngestNode as Node


def make(c: Components) -> Node:
    async def embed_chunks(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        batch = list(state.get("batch") or [])

        def work() -> tuple[list[list[list[float]]], list[dict[str, Any]]]:
            vectors = embed_records(batch, c.embedder)
            classifier = passage_classifier(c.embedder.model_id)
            scored = []
            for record, vecs in zip(batch, vectors, strict=True):
                # the classifier reads the chunk's text as embedded (title and section included)
                scores = chunk_scores(record["texts"], np.asarray(vecs) if vecs else None, classifier=classifier)
                payloads = [{**p, SCORE_KEY: s} for p, s in zip(record["payloads"], scores, strict=True)]
                scored.append({**record, "payloads": payloads})
            return vectors, scored

        vectors, scored = await asyncio.to_thread(work)
        return {"vectors": vectors, "batch": scored}

    return embed_chunks
