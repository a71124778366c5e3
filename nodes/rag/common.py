"""Helpers shared by the query-graph nodes."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

from components.heuristics.analysis import analyze_query as analyze_rules
from components.resilience.errors import CollectionNotFound, RAGError
from components.retrieval.filters import SearchFilters
from components.retrieval.policy import age_days
from graph.context import Context
from graph.state import Asker, RAGState
from nodes.rag.rails import is_placeholder, raw_words

if TYPE_CHECKING:
    from components.factory import Components
    from components.models.chat import Role
    from components.stores.corpus import Corpus

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)
V = TypeVar("V")
#: the loop counters the graders keep (graph/routes.py caps them)
FailureCounter = Literal["context_failures", "hallucination_failures", "answer_failures"]


def hit_to_result(rank: int, payload: dict[str, Any], score: float, **extra: Any) -> dict[str, Any]:
    """A search result as users see it; missing metadata shows as None, never a crash."""
    idx, total = payload.get("chunk_index"), payload.get("total_chunks")
    return {
        "rank": rank,
        "score": round(score, 6),
        "chunk_id": payload.get("chunk_id"),
        "doc_id": payload.get("doc_id"),
        "text": payload.get("text") or "",
        "source": payload.get("source"),
        "title": payload.get("title"),
        "section_hierarchy": payload.get("section_hierarchy") or [],
        "chunk": f"{idx + 1} of {total}" if isinstance(idx, int) and isinstance(total, int) else None,
        "position": idx if isinstance(idx, int) else None,
        "age_days": age_days(payload, date.today()),
        "chunk_type": payload.get("chunk_type"),
        "vault": payload.get("vault"),
        "tags": payload.get("tags") or [],
        "aliases": payload.get("aliases") or [],
        "links": payload.get("links") or [],
        "created": payload.get("created"),
        "modified": payload.get("modified"),
        "language": payload.get("language"),
        "parent_id": payload.get("parent_id"),
        "metadata": payload.get("metadata") or {},
        "injection": payload.get("injection"),
        **extra,
    }


def depth(state: Mapping[str, Any]) -> int:
    """How many ranked results a retrieval needs: the ``top_k`` shown and the ``offset`` skipped before them."""
    return int(state["top_k"]) + int(state.get("offset") or 0)


class Filtered(Asker, total=False):
    """What ``run_filters`` reads of a state (the query graph's or a retrieval's)."""

    search_filters: dict[str, Any]
    collection: str
    question: str


def collections_of(state: Mapping[str, Any]) -> list[str]:
    """The collections a run reads (``guard_input`` settles them); a retrieval reads its one."""
    return list(state.get("collections") or [state["collection"]])


def corpus_of(c: Components, state: Mapping[str, Any]) -> Corpus:
    """The run's collections as one corpus (``Components.corpus_of``): what idf, languages and
    access are read from. It reads the store: call it off the event loop."""
    return c.corpus_of(collections_of(state))


def term_idf(c: Components, state: Mapping[str, Any]) -> Mapping[str, float]:
    """The idf the graders and the extractive answerer weigh a question's terms by: the run's
    collections'. Documents given with the question need no index: with none to read, every term
    weighs the same. It reads the store: call it off the event loop."""
    try:
        return corpus_of(c, state).idf
    except CollectionNotFound:
        if state.get("documents"):
            return {}
        raise


def run_filters(c: Components, state: Filtered, ctx: Context, filters: Any = None) -> SearchFilters:
    """The filters a retrieval applies: the run's (or ``filters``), within the caller's access groups.

    Every node that reads chunks from the index takes its filters from here, so no path (dense,
    BM25, "more like this", pseudo-relevance feedback) sees a chunk outside ``ctx.access_groups``.
    An index with no restricted chunk needs no access condition, and a filter costs local mode a
    pass over every payload (20 ms a query at 4k chunks), so it is added only when one exists;
    if that cannot be told (the store is down), it is added.
    """
    parsed = named_authors(
        c, state, ctx, SearchFilters.parse(state.get("search_filters") if filters is None else filters)
    )
    try:
        restricted = corpus_of(c, state).restricted
    except Exception:  # the store unreadable (down, a corrupt cache): the safe answer is "restricted"
        restricted = True
    return parsed.within(ctx.access_groups) if restricted else parsed


def named_authors(c: Components, state: Filtered, ctx: Context, parsed: SearchFilters) -> SearchFilters:
    """``parsed`` with the authors a redacted question named read back from its own words.

    The input rail redacts a name ("papers by <PERSON>"); ``analyze_query`` keeps the placeholder
    in the run's filters, which the thread's checkpoint stores (decision 0012), and here, where the
    store is read and nothing is kept, the question's words (``raw_words``) are read again for the
    authors the collections hold. Once the process has forgotten them (a thread resumed later) the
    placeholder matches no document.
    """
    if not parsed.authors or not any(is_placeholder(a) for a in parsed.authors):
        return parsed
    own = raw_words(state, str(state.get("question") or ""))
    known = c.known_values_of(collections_of(state), ctx.access_groups)
    found = analyze_rules(own, known_authors=known.authors).filters.get("authors") or []
    named = [a for a in parsed.authors if not is_placeholder(a)]
    return parsed.model_copy(update={"authors": list(dict.fromkeys([*named, *found])) or parsed.authors})


def use_llm(c: Components, ctx: Context, role: Role, override: str = "", *, state: RAGState | None = None) -> bool:
    """Whether this node should call its LLM: enabled for the run, configured, breaker closed, and
    the run (``state``'s request id) not past a timeout or its deadline (``components.resilience.run_budget``)."""
    return ctx.use_llm and c.llm.available(role, override, run=run_of(state))


def run_of(state: RAGState | None) -> str:
    """The key of the run's LLM budget: its request id ('' outside a run)."""
    return str((state or {}).get("request_id") or "")


async def ask_llm(
    c: Components,
    ctx: Context,
    state: RAGState,
    *,
    node: str,
    role: Role,
    schema: type[M],
    messages: list[BaseMessage],
    override: str = "",
) -> M | None:
    """The role's structured reply, or None when the node should take its non-LLM path.

    None when the LLM is off for the run, not configured or behind an open breaker, and when
    the call fails (logged with kind, node and request id): every LLM node has a non-LLM path,
    so a failed call costs quality, never the answer.
    """
    if not use_llm(c, ctx, role, override, state=state):
        return None
    try:
        return await c.llm.structured(role, schema, messages, override=override, run=run_of(state))
    except RAGError as e:
        log_error("llm", node, state, e)
        return None


async def judge(
    c: Components,
    ctx: Context,
    state: RAGState,
    *,
    node: str,
    role: Role,
    schema: type[M],
    messages: list[BaseMessage],
    override: str = "",
    from_llm: Callable[[M], V],
    without_llm: Callable[[], V],
    ask: bool = True,
) -> V:
    """One decision of an LLM-or-heuristic node: the model's when it gives one, else the heuristic's.

    The graders and the router share this shape: ask the role's model for a structured reply
    (only when ``ask``), turn it into the node's verdict with ``from_llm``; when there is no
    reply (no LLM, breaker open, failed call) run ``without_llm`` in a worker thread, since the
    heuristics embed and score on the CPU and would otherwise block the event loop.
    """
    reply = (
        await ask_llm(c, ctx, state, node=node, role=role, schema=schema, messages=messages, override=override)
        if ask
        else None
    )
    if reply is not None:
        return from_llm(reply)
    return await asyncio.to_thread(without_llm)


def count_failure(state: RAGState, key: FailureCounter, passed: bool) -> dict[str, int]:
    """The loop counter update of a grader: one more failure under ``key`` unless it passed."""
    return {} if passed else {key: int(state.get(key) or 0) + 1}


def log_error(kind: str, node: str, state: Asker, error: BaseException) -> None:
    """One structured log line per error: kind, node, time, request id (never shown to users)."""
    log.error(
        "error kind=%s node=%s time=%s request_id=%s: %s: %s",
        kind,
        node,
        datetime.now(UTC).isoformat(timespec="milliseconds"),
        state.get("request_id") or "-",
        type(error).__name__,
        error,
    )


_PASSAGE_TAG = re.compile(r"<(/?)(passage)", re.IGNORECASE)


def numbered(texts: Iterable[str]) -> str:
    """Passages as the LLM sees them: each between ``<passage id="n">`` tags, numbered from 1 (the
    number an answer cites as ``[n]``). They travel in a user message, never in the system prompt,
    and the prompts call them data. A passage tag written inside a document is defused (``‹``):
    no passage can close its own block and go on outside it."""
    blocks = (_PASSAGE_TAG.sub(r"‹\1\2", t.strip()) for t in texts)
    return "\n".join(f'<passage id="{i}">\n{text}\n</passage>' for i, text in enumerate(blocks, start=1))
