"""Documents given with the question: their chunks ranked by rank-bm25 against it become the passages.

A chat app passes what the user pasted (``documents`` in the input), `rag ask --attach FILE` a
file's text. The question is about them, so the index is not searched: each document is chunked as
ingestion chunks, its chunks ranked against the question's own words by rank-bm25 over the index's
tokenizer (``components.retrieval.in_memory``; chunks of equal score keep their reading order, which
says nothing of relevance), and the best ``Context.sources`` become numbered passages. They
are screened as stored chunks are (the curated patterns and the passage head over their vectors, at
the stored chunks' threshold): a pasted document is as much the user's material as a note, and as
likely to carry someone else's instructions. Nothing is written to the index or the cache, and the
run's inputs, the documents with them, are cleared when it ends.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.ingestion.chunker import chunk_document
from components.ingestion.documents import Document
from components.retrieval import in_memory
from graph.context import Context
from graph.state import GivenDocument, Passage, RAGState
from guardrails.documents import chunk_scores, passage_classifier
from nodes.rag.rails import raw_words, screen_passages
from nodes.types import RAGNode as Node


def make(c: Components) -> Node:
    async def read_documents(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = raw_words(state, state.get("question") or "")
        given = list(state.get("documents") or [])

        def read() -> tuple[list[Passage], list[str]]:
            s = c.settings
            chunks = [p for i, d in enumerate(given, start=1) for p in _passages(i, d, s.chunk_size, s.chunk_overlap)]
            order = in_memory.by_words(question, [p["text"] for p in chunks], c.tokenizer)
            best = [{**chunks[i], "n": n} for n, i in enumerate(order[: ctx.sources], start=1)]
            texts = [p["text"] for p in best]
            classifier = passage_classifier(c.embedder.model_id)
            vectors = c.embedder.encode_documents(texts) if classifier is not None and texts else None
            scores = chunk_scores(texts, vectors, classifier=classifier)
            return screen_passages([Passage(**p) for p in best], scores)  # type: ignore[typeddict-item]

        kept, notes = await asyncio.to_thread(read)
        out: dict[str, Any] = {"passages": kept, "notes": notes}
        if not kept:
            out["fallback_reason"] = "every passage of the documents given held instructions"
        return out

    return read_documents


def _passages(i: int, given: GivenDocument, size: int, overlap: int) -> list[dict[str, Any]]:
    """A given document's chunks as passages: cited by its source, else its title, else "document i"."""
    name = given.get("source") or given.get("title") or f"document {i}"
    title = given.get("title") or name
    doc = Document(doc_id=f"given:{i}", text=given["text"], source=name, title=title, format="given")
    return [
        {
            "text": ch.text,
            "doc_id": doc.doc_id,
            "chunk_ids": [],
            "source": name,
            "title": doc.title,
            "section": " > ".join(ch.section_hierarchy),
            "score": None,
            "parent_id": None,
            "extent": "chunk",
        }
        for ch in chunk_document(doc, size=size, overlap=overlap)
    ]
