"""State of the query graph (``rag``): what comes in, what flows between nodes, what goes out.

Chat clients speak LangGraph's message convention: ``messages`` accumulates with
``add_messages``; a run whose input has only messages takes the last human message as the
question, and each answer is appended as an AIMessage.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer for dicts written by parallel nodes; ``None`` resets (a new run in a thread)."""
    if right is None:
        return {}
    return {**(left or {}), **right}


def extend(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """Reducer for lists that accumulate during a run; ``None`` resets (a new run in a thread)."""
    if right is None:
        return []
    return [*(left or []), *right]


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
    path: Literal["llm", "extractive", "none"]
    """Whether a language model or the extractive fallback produced the answer (none: refusal, error)."""
    escalation: dict[str, Any] | None
    """Set when the graph gave up (loop cap, no results, error): reason, node, counts; None otherwise."""
    request_id: str
    """Identifies this run in the logs."""
    steps: Annotated[list[dict[str, Any]], extend]
    """Nodes visited, in order, with milliseconds each (``rag ask --debug``)."""
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


class RAGState(InputState, OutputState, total=False):
    language: str
    """Detected language of the question (ja or en)."""
    queries: list[str]
    """Phrasings searched (multi-query search merges them keeping each chunk's best score)."""
    dense_hits: list[list[dict[str, Any]]]
    """Per query, the dense retriever's hits (point_id, score, payload)."""
    bm25_hits: list[list[dict[str, Any]]]
    """Per query, BM25's hits."""
    retrievers: Annotated[list[str], extend]
    """Retrievers that answered this run (dense, bm25)."""
    candidates: list[dict[str, Any]]
    """Fused hits, best first, before reranking."""
    notes: Annotated[list[str], extend]
    """Warnings collected by parallel nodes; copied to ``warnings`` at the end."""
    search_filters: dict[str, Any]
    """The filters this run searches with: the caller's, plus those read from the question and the
    user's profile (``filters`` stays as the caller gave it, so a thread never inherits them)."""
    analysis: dict[str, Any]
    """Query analysis: language, filters found in the question (and why), profile defaults, path."""
    route_reason: str
    """Why the router chose the route (scores or the LLM's reason)."""
    standalone_question: str
    """The question rewritten to stand alone (follow-ups resolved) or expanded; what BM25 searches."""
    dense_queries: list[str]
    """Texts whose embeddings drive dense retrieval (HyDE's hypothetical answer); default ``queries``."""
    rewrites: int
    """Rewrites done this run (any loop)."""
    context_verdict: dict[str, Any]
    """Context grader: relevant, score, reason, path."""
    context_failures: int
    """Times the context was graded not relevant (cap: max_context_rewrites)."""
    passages: list[dict[str, Any]]
    """Numbered context for generation: parent sections or web results (n, text, source, title, section)."""
    web_results: list[dict[str, Any]]
    """Web search results (title, url, content, score)."""
    hallucination: dict[str, Any]
    """Hallucination check: grounded, score, unsupported sentences, path."""
    hallucination_failures: int
    """Times the answer was found ungrounded (cap: max_regenerations)."""
    answer_verdict: dict[str, Any]
    """Answer grader: useful, score, reason, path."""
    answer_failures: int
    """Times the answer was graded not useful (cap: max_answer_rewrites)."""
    guardrail: dict[str, Any]
    """Input guardrail verdict: allowed, category, reason, pii kinds."""
    fallback_reason: str
    """Why the fallback answer was given (logged for improvement)."""
    trace: Annotated[dict[str, Any], merge_dicts]
    """Debug details gathered on the way: filter as sent to Qdrant, collection, vector size."""
