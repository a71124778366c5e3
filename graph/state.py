"""State of the query graph (``rag``): what comes in, what flows between nodes, what goes out.

Chat clients speak LangGraph's message convention: ``messages`` accumulates with
``add_messages``; a run whose input has only messages takes the last human message as the
question, and each answer is appended as an AIMessage.

Records in state are TypedDicts (checkpointers and ``langgraph dev`` store JSON): verdicts,
passages, sources, results, steps. A thread keeps its last run's state, so each run starts by
resetting every key that belongs to one run (``run_reset``) and ends by clearing the caller's
per-run inputs (``input_reset``); both are derived from the schema below, so a new key is reset
without anyone remembering to (a unit test checks that every key is covered).
"""

from __future__ import annotations

import copy
import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, Union, get_args, get_origin, get_type_hints

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


def merge_dicts(left: dict[str, Any] | None, right: dict[str, Any] | None) -> dict[str, Any]:
    """Reducer for dicts written by parallel nodes; ``None`` resets (a new run in a thread)."""
    if right is None:
        return {}
    return {**(left or {}), **right}


RESTART = "__restart__"
"""First item of a list update that resets the list and then adds the rest (one update can do both)."""


def extend(left: list[Any] | None, right: list[Any] | None) -> list[Any]:
    """Reducer for lists that accumulate during a run; ``None`` resets (a new run in a thread), and
    so does a list starting with ``RESTART``, keeping what follows it."""
    if right is None:
        return []
    if right and right[0] == RESTART:
        return list(right[1:])
    return [*(left or []), *right]


# --- records ----------------------------------------------------------------------------------


class GuardrailVerdict(TypedDict):
    """What the input guardrail decided."""

    allowed: bool
    category: str | None
    """Why the question was blocked (prompt_injection, too_long); None when allowed."""
    reason: str
    pii: list[str]
    """Kinds of personal data found (they do not block; they keep the answer out of the cache)."""


class Analysis(TypedDict, total=False):
    """Query analysis: filters read from the question (and why), profile defaults, the path taken."""

    path: Literal["rules", "llm"]
    explanations: list[str]
    structured: bool
    """The question is only metadata conditions ("notes tagged #rag from May")."""
    filters_from_question: dict[str, Any]
    profile_filters: dict[str, Any]
    language: str | None
    search_text: str
    """The question without the words that only stated filters (what to search for)."""


class ContextVerdict(TypedDict):
    """Context grader: are the retrieved chunks relevant to the question?"""

    relevant: bool
    score: float
    reason: str
    path: Literal["llm", "calibrated", "rules"]
    ranks: list[int]
    """1-based ranks of the results judged relevant."""


class HallucinationVerdict(TypedDict):
    """Hallucination check: is every statement of the answer supported by the passages?"""

    grounded: bool
    score: float
    unsupported: list[str]
    path: Literal["llm", "sentence_support"]


class AnswerVerdict(TypedDict):
    """Answer grader: does the answer resolve the question?"""

    useful: bool
    score: float
    reason: str
    path: Literal["llm", "similarity"]


class Passage(TypedDict, total=False):
    """Numbered context for generation, citable as [n]: a parent section, a window of it, a chunk or a web page."""

    n: int
    text: str
    doc_id: str | None
    chunk_ids: list[str | None]
    source: str | None
    title: str | None
    section: str
    """Heading path, 'A > B'."""
    score: float | None
    parent_id: str | None
    extent: Literal["parent", "window", "chunk"]
    links: list[str]
    """The notes its document links to ([[wikilinks]]), by name."""


class Source(TypedDict):
    """A passage the answer cites, numbered as in the answer."""

    n: int
    doc_id: str | None
    source: str | None
    title: str | None
    section: str
    score: float | None
    chunk_ids: list[str | None]


class Result(TypedDict, total=False):
    """A ranked chunk as users see it (search mode, and the evidence of Q&A)."""

    rank: int
    score: float
    """0..1: the scaled fusion score, or the cross-encoder's after reranking."""
    chunk_id: str | None
    doc_id: str | None
    text: str
    source: str | None
    title: str | None
    section_hierarchy: list[str]
    chunk: str | None
    """"3 of 7": where the chunk sits in its document."""
    position: int | None
    """The chunk's index in its document, from 0 (what ``chunk`` says for people), for programs."""
    age_days: int | None
    """Days since the chunk's document was written (its ``created`` date, a record's year); None when undated."""
    embedding: NotRequired[list[float]]
    """With ``include_embeddings``: the chunk's dense vector as the store holds it."""
    vault: str | None
    collection: NotRequired[str]
    """The collection it came from, when a run reads several."""
    tags: list[str]
    aliases: list[str]
    links: list[str]
    """The notes its document links to ([[wikilinks]]), by name."""
    created: str | None
    modified: str | None
    language: str | None
    parent_id: str | None
    ranks: dict[str, int]
    retriever_scores: dict[str, float]
    metadata: dict[str, Any]
    """The document's own metadata: frontmatter keys beyond title, tags, dates and aliases; a JSONL
    record's ``metadata`` (payload key ``metadata``, filterable as ``metadata.KEY``)."""
    injection: float | None
    """The chunk's injection score from ingestion (0..1; at ``POLICY.document_injection_threshold``
    and up it holds instructions aimed at the assistant, and Q&A keeps it from every model); None
    for chunks indexed before scoring."""
    chunks: NotRequired[list[Result]]
    """With ``group_by_document``: the document's matching chunks (the entry is then a document)."""


class WebResult(TypedDict, total=False):
    title: str
    url: str
    content: str
    score: float


class Escalation(TypedDict, total=False):
    """Why the graph gave up: the reason, the node, the loop counters, the request id."""

    reason: str
    node: str
    request_id: str
    rewrites: int
    context_failures: int
    hallucination_failures: int
    answer_failures: int


class Step(TypedDict):
    node: str
    ms: float
    start: float
    """``time.perf_counter()`` at the node's start, so a benchmark can tell parallel nodes' overlap."""


# --- the schema -------------------------------------------------------------------------------


class Asker(TypedDict, total=False):
    """Whose question a run answers: what every part of the graph that logs, or restores a redacted
    question's words for in-process models, reads (``RAGState`` has both keys)."""

    request_id: str
    guardrail: GuardrailVerdict


class GivenDocument(TypedDict, total=False):
    """A document given with the question (pasted into a chat, attached to `rag ask`): read for this
    run only, never written to the index or the cache."""

    text: str
    title: str
    source: str
    """Where it came from (a file's path, a URL), as its sources name it; else "document N"."""


class InputState(TypedDict, total=False):
    question: str
    """The user's question or search query."""
    documents: list[GivenDocument]
    """Q&A: documents given with the question; it is answered from them (their chunks ranked by
    rank-bm25 against the question and screened as stored chunks are), not from the index."""
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
    top_k: int | None
    """How many results or sources to return."""
    offset: int | None
    """Search: skip this many results first (paging); ranks go on from ``offset + 1``."""
    include_embeddings: bool
    """Search: put the question's vector (``query_embedding``) and each result's stored vector
    (``embedding``) in the output, for callers that cluster, plot or re-rank results themselves."""
    messages: Annotated[list[AnyMessage], add_messages]
    """Conversation so far (LangGraph chat convention)."""


class OutputState(TypedDict, total=False):
    answer: str
    """The answer text with [n] citations (qa mode)."""
    sources: list[Source]
    """Numbered sources the answer cites: n, doc_id, source, title, section, score."""
    results: list[Result]
    """Ranked chunks (search mode, and the evidence of qa mode)."""
    confidence: float
    """0..1; for the extractive path the share of question terms the chosen sentences cover."""
    route: str
    """Which branch answered: vector_search, metadata_search, web_search, direct_answer (blocked: the
    input guardrail)."""
    path: Literal["llm", "extractive", "metadata", "none"]
    """Whether a language model or the extractive fallback produced the answer, or a listing of the
    documents that meet the question's conditions (metadata); none: refusal, error."""
    escalation: Escalation | None
    """Set when the graph gave up (loop cap, no results, error): reason, node, counts; None otherwise."""
    request_id: str
    """Identifies this run in the logs."""
    steps: Annotated[list[Step], extend]
    """Nodes visited, in order, with milliseconds each (``rag ask --debug``)."""
    warnings: list[str]
    """Things the user should know (reranker skipped, no results, ...)."""
    cache_hit: bool
    examples: list[dict[str, Any]]
    """Answers rated good that the LLM generator was shown as examples: feedback_id, question, similarity."""
    timings_ms: Annotated[dict[str, float], merge_dicts]
    """Milliseconds per stage."""
    total: int
    """Number of results."""
    query_embedding: list[float] | None
    """With ``include_embeddings``: the question's vector, as dense search used it."""
    debug_info: dict[str, Any]
    """With ``debug``: collection, vector size, Qdrant filter, per-retriever ranks and scores."""
    messages: Annotated[list[AnyMessage], add_messages]


class RAGState(InputState, OutputState, total=False):
    collection: str
    """The collection this run reads: the Context's, else the COLLECTION setting (``guard_input``
    settles it, and ``top_k``, once per run); the first of ``collections``."""
    collections: list[str]
    """Every collection this run reads (``Context.collections``; else ``collection`` alone): several
    are each searched, their results merged, and read together by the steps after retrieval."""
    language: str
    """Detected language of the question (ja or en)."""
    queries: list[str]
    """Phrasings searched (multi-query search merges them keeping each chunk's best score)."""
    notes: Annotated[list[str], extend]
    """Warnings collected by parallel nodes; copied to ``warnings`` at the end."""
    search_filters: dict[str, Any]
    """The filters this run searches with: the caller's, plus those read from the question and the
    user's profile (``filters`` stays as the caller gave it, so a thread never inherits them)."""
    analysis: Analysis
    """Query analysis: language, filters found in the question (and why), profile defaults, path."""
    route_reason: str
    """Why the router chose the route (scores or the LLM's reason)."""
    standalone_question: str
    """The question rewritten to stand alone (follow-ups resolved) or expanded; what BM25 searches."""
    condensed_question: str
    """A follow-up rewritten to stand alone before the cache is asked (LLM rewriter only): what the
    cache keys the run on, never changed by the retries ('' for a first question or without an LLM)."""
    translated_question: str
    """The standalone question in the notes' other language (LLM rewriter, when the index holds both
    Japanese and English): searched as a second phrasing, so BM25 can match the other language."""
    dense_queries: list[str]
    """Texts whose embeddings drive dense retrieval (HyDE's hypothetical answer); default ``queries``."""
    rewrites: int
    """Rewrites done this run (any loop)."""
    context_verdict: ContextVerdict | None
    """Context grader: relevant, score, reason, path."""
    context_failures: int
    """Times the context was graded not relevant (cap: max_context_rewrites)."""
    passages: list[Passage]
    """Numbered context for generation: parent sections or web results (n, text, source, title, section)."""
    web_results: list[WebResult]
    """Web search results (title, url, content, score)."""
    hallucination: HallucinationVerdict | None
    """Hallucination check: grounded, score, unsupported sentences, path."""
    hallucination_failures: int
    """Times the answer was found ungrounded (cap: max_regenerations)."""
    answer_verdict: AnswerVerdict | None
    """Answer grader: useful, score, reason, path."""
    answer_failures: int
    """Times the answer was graded not useful (cap: max_answer_rewrites)."""
    guardrail: GuardrailVerdict
    """Input guardrail verdict: allowed, category, reason, pii kinds."""
    fallback_reason: str
    """Why the fallback answer was given (logged for improvement)."""
    trace: Annotated[dict[str, Any], merge_dicts]
    """Debug details gathered on the way: filter as sent to Qdrant, collection, vector size."""


# --- what a run resets --------------------------------------------------------------------------

THREAD_KEYS = frozenset({"messages"})
"""Keys a thread accumulates across runs; everything else belongs to one run."""
RESET_VALUES: dict[str, Any] = {"path": "none", "mode": "qa", "top_k": None}
"""Empty values the type alone does not give (a Literal's neutral member, "not given")."""


def _empty(key: str, hint: Any) -> Any:
    """The value a key has before a run writes it: None for accumulating keys (their reducers
    treat None as "reset"), else the empty value of its type."""
    if key in RESET_VALUES:
        return RESET_VALUES[key]
    if get_origin(hint) is Annotated:
        return None
    origin = get_origin(hint) or hint
    if origin in (Union, types.UnionType) and type(None) in get_args(hint):
        return None
    for kind in (bool, str, int, float, list, dict):
        if origin is kind or (isinstance(origin, type) and issubclass(origin, kind)):
            return kind()
    if isinstance(origin, type) and issubclass(origin, dict):  # a TypedDict record
        return {}
    raise TypeError(f"state key {key!r} ({hint}) has no empty value: add it to RESET_VALUES or THREAD_KEYS")


def _resets(schema: type, skip: set[str]) -> dict[str, Any]:
    hints = get_type_hints(schema, include_extras=True)
    return {k: _empty(k, h) for k, h in hints.items() if k not in skip and k not in THREAD_KEYS}


def run_reset() -> dict[str, Any]:
    """Every key of one run (all but the caller's inputs and the thread's messages) at its empty value."""
    return copy.deepcopy(_RUN_RESET)


def input_reset() -> dict[str, Any]:
    """The caller's per-run inputs at their empty values: cleared when a run ends, so the next run
    in the thread (a chat client sending only messages, Studio) does not inherit them."""
    return copy.deepcopy(_INPUT_RESET)


_INPUT_KEYS = set(get_type_hints(InputState))
_RUN_RESET = _resets(RAGState, skip=_INPUT_KEYS)
_INPUT_RESET = _resets(InputState, skip=set())


# --- reading the state: verdicts, the question of this run and the thread's history ------------

Verdict = Literal["context_verdict", "hallucination", "answer_verdict"]


def verdict(state: RAGState, name: Verdict) -> bool | None:
    """A grader's yes or no this run (relevant, grounded, useful); None when it has not graded yet."""
    if name == "context_verdict":
        c = state.get("context_verdict")
        return None if c is None else c["relevant"]
    if name == "hallucination":
        h = state.get("hallucination")
        return None if h is None else h["grounded"]
    a = state.get("answer_verdict")
    return None if a is None else a["useful"]


def question_of(state: RAGState) -> str:
    """The explicit question, else the last human message (chat clients send only messages)."""
    q = (state.get("question") or "").strip()
    if q:
        return q
    for m in reversed(state.get("messages") or []):
        if isinstance(m, HumanMessage) and isinstance(m.content, str):
            return m.content.strip()
    return ""


def language_of(state: Mapping[str, Any]) -> str:
    """The question's language (ja or en); English when undetermined."""
    lang = state.get("language") or "en"
    return lang if lang in ("ja", "en") else "en"


def prior_turns(state: RAGState) -> list[AnyMessage]:
    """Messages before the current question (the thread's history)."""
    msgs = list(state.get("messages") or [])
    for i in range(len(msgs) - 1, -1, -1):
        if isinstance(msgs[i], HumanMessage):
            return msgs[:i]
    return msgs


def previous_question(state: RAGState) -> str:
    """The thread's previous human message ('' on a first question)."""
    for m in reversed(prior_turns(state)):
        if isinstance(m, HumanMessage) and isinstance(m.content, str):
            return m.content.strip()
    return ""
