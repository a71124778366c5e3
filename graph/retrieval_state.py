"""State of the retrieval subgraph (prepare → dense ∥ BM25 → fuse → rank), shared by search and Q&A.

The query graph hands retrieval the request (``RetrievalInput``) and takes back the settled
request and the ranked results (``RetrievalOutput``); the retrievers' hits, the fused candidates
live only here, for one retrieval. Each retrieval starts empty, so a Q&A
run that retrieves again after a rewrite never sees the hits or retrievers of the pass before.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from typing_extensions import TypedDict

from components.retrieval.hits import HitRecord
from graph.state import Asker, Result, Step, extend, merge_dicts


class Settled(TypedDict, total=False):
    """The request as ``prepare_search`` settles it; handed back to the query graph."""

    question: str
    queries: list[str]
    """Phrasings searched (multi-query search merges them keeping each chunk's best score)."""
    dense_queries: list[str]
    """Texts whose embeddings drive dense retrieval (HyDE's hypothetical answer); default ``queries``."""
    search_filters: dict[str, Any]
    """The caller's filters plus those read from the question and the user's profile."""
    language: str
    route: str
    trace: Annotated[dict[str, Any], merge_dicts]
    """Debug details: the filter as sent to Qdrant, collection, index version, vector size."""


class Asked(Asker, total=False):
    """The rest of the request, which retrieval only reads."""

    mode: Literal["qa", "search"]
    top_k: int
    """Results (search) or sources (Q&A) wanted, as ``guard_input`` settled them for the run."""
    collection: str
    """The collection searched, as ``guard_input`` settled it for the run."""
    offset: int
    """Search: results skipped before the ``top_k`` shown (paging), as ``guard_input`` settled it."""
    filters: dict[str, Any]
    similar_to: str
    group_by_document: bool
    debug: bool
    include_embeddings: bool


class RetrievalInput(Settled, Asked, total=False):
    """What the query graph hands to retrieval."""


class Ranked(TypedDict, total=False):
    """What ranking produces: the results as users see them, and what the run reports about them."""

    results: list[Result]
    total: int
    query_embedding: list[float] | None
    notes: Annotated[list[str], extend]
    """Warnings for the user (a retriever's fallback, reranking skipped, no results and why)."""
    timings_ms: Annotated[dict[str, float], merge_dicts]
    debug_info: dict[str, Any]
    steps: Annotated[list[Step], extend]


class RetrievalOutput(Settled, Ranked, total=False):
    """What retrieval hands back to the query graph."""


class RetrievalState(RetrievalOutput, Asked, total=False):
    """Everything one retrieval reads and writes."""

    dense_hits: list[list[HitRecord]]
    """Per query, the dense retriever's hits (point_id, score, payload)."""
    bm25_hits: list[list[HitRecord]]
    """Per query, BM25's hits."""
    retrievers: Annotated[list[str], extend]
    """Retrievers that answered (dense, bm25)."""
    candidates: list[HitRecord]
    """Fused hits, best first, before reranking."""
