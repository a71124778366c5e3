"""State of the query graph (``rag``): what comes in, what flows between nodes, what goes out.

Chat clients speak LangGraph's message convention: ``messages`` accumulates with
``add_messages``; a run whose input has only messages takes the last human message as the
question, and each answer is appended as an AIMessage.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


class InputState(TypedDict, total=False):
    question: str
    """The user's question or search query."""
    mode: Literal["qa", "search"]
    """``qa`` answers with citations; ``search`` returns ranked chunks."""
    queries: list[str]
    """Optional extra phrasings of the question, searched together (multi-query)."""
    group_by_document: bool
    """Search: one entry per document (best score, its matching chunks)."""
    similar_to: str
    """Search: documents similar to this document id (the question may then be empty)."""
    debug: bool
    """Add per-stage timings, the Qdrant filter and per-retriever ranks to the output."""
    filters: dict[str, Any]
    """Metadata filters (vault, tags, dates, source, language, ...)."""
    top_k: int
    """How many results or sources to return."""
    messages: Annotated[list[AnyMessage], add_messages]
    """Conversation so far (LangGraph chat convention)."""


class OutputState(TypedDict, total=False):
    answer: str
    """The answer text with [n] citations (qa mode)."""
    sources: list[dict[str, Any]]
    """Numbered sources the answer cites: n, doc_id, source, title, section, score."""
    results: list[dict[str, Any]]
    """Ranked chunks (search mode, and the evidence of qa mode)."""
    confidence: float
    """0..1; for the extractive path the share of question terms the chosen sentences cover."""
    route: str
    """Which branch answered: vector_search, web_search, direct_answer."""
    path: Literal["llm", "extractive"]
    """Whether a language model or the extractive fallback produced the answer."""
    warnings: list[str]
    """Things the user should know (reranker skipped, no results, ...)."""
    cache_hit: bool
    timings_ms: Annotated[dict[str, float], merge_dicts]
    """Milliseconds per stage."""
    total: int
    """Number of results."""
    debug_info: dict[str, Any]
    """With ``debug``: collection, vector size, Qdrant filter, per-retriever ranks and scores."""
    messages: Annotated[list[AnyMessage], add_messages]


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer for timings and debug info written by parallel nodes."""
    return {**(left or {}), **(right or {})}


class RAGState(InputState, OutputState, total=False):
    language: str
    """Detected language of the question (ja or en)."""
    queries: list[str]
    """Phrasings searched (multi-query search merges them keeping each chunk's best score)."""
    dense_hits: list[list[dict[str, Any]]]
    """Per query, the dense retriever's hits (point_id, score, payload)."""
    bm25_hits: list[list[dict[str, Any]]]
    """Per query, BM25's hits."""
    retrievers: Annotated[list[str], operator.add]
    """Retrievers that answered this run (dense, bm25)."""
    candidates: list[dict[str, Any]]
    """Fused hits, best first, before reranking."""
    notes: Annotated[list[str], operator.add]
    """Warnings collected by parallel nodes; copied to ``warnings`` at the end."""
    trace: Annotated[dict[str, Any], merge_dicts]
    """Debug details gathered on the way: filter as sent to Qdrant, collection, vector size."""
