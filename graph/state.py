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


class InputState(TypedDict, total=False):
    question: str
    """The user's question or search query."""
    mode: Literal["qa", "search"]
    """``qa`` answers with citations; ``search`` returns ranked chunks."""
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
    timings_ms: dict[str, float]
    messages: Annotated[list[AnyMessage], add_messages]


class RAGState(InputState, OutputState, total=False):
    language: str
    """Detected language of the question (ja or en)."""
