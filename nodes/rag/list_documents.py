"""Metadata route: a question that only states conditions on documents gets the documents that meet them.

「2025年に書いた #料理 のメモは？」 and "Which notes are tagged rag?" name a tag, a vault or a period
and no topic (query analysis marks them ``structured``). Vector search has nothing to rank them by,
and the graders then judge an answer about "notes" useless; so the router sends them here. The node
reads every chunk the run's filters admit (within the caller's access groups, as every read does),
keeps one row per document, and answers with the list: a count, the conditions applied, and each
document's title, date, place and tags (authors and year for papers), ordered as the question
implies (``components.retrieval.listing``), in the question's language. Each listed document is a
numbered source, so chat clients show them as citations. The list comes from the store alone;
with an LLM, one cited paragraph on what the listed documents say follows it (their first chunks,
as data in the user's turn). Nothing is cached (a listing changes with every note written).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import LLMUnavailable
from components.retrieval.filters import SearchFilters
from components.retrieval.listing import LIST_FIELDS, ListedDocument, conditions, documents_of, order
from components.retrieval.results import group_by_document
from components.text import messages
from graph.context import Context
from graph.state import Passage, RAGState, Source, language_of
from nodes.rag.common import collections_of, hit_to_result, log_error, numbered, run_filters, run_of, use_llm
from nodes.rag.failures import Fallback
from nodes.rag.rails import prompt_markers, stream_screen
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)

#: documents a listing shows at most (the count says how many matched)
MAX_LISTED = 50
#: characters of each listed document (its first chunk) a model reads to summarise the list
SUMMARY_CHARS = 600
_AUTHORS_SHOWN = 3


def make(c: Components) -> Node:
    async def list_documents(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        filters = await asyncio.to_thread(run_filters, c, state, ctx)
        names = collections_of(state)
        searching = state.get("mode") == "search"
        summarise = not searching and use_llm(c, ctx, "generator", ctx.generator_model, state=state)
        # search shows each document's first chunk, and a model summarises from it
        fields = True if searching or summarise else list(LIST_FIELDS)
        where = filters.to_qdrant()
        async with c.breakers.guard("vector_store"):
            read = await asyncio.to_thread(lambda: {n: _scroll(c, n, fields, where) for n in names})
        payloads = [p for n in names for p in read[n]]
        ordered, sort = order(documents_of(payloads), state.get("question") or "", filters)
        if searching:
            # a listing of several collections says where each document is kept, as their search does
            homes = {str(p.get("chunk_id")): n for n in names for p in read[n]} if len(names) > 1 else {}
            return {"route": "metadata_search", **as_search_results(ordered, payloads, state, homes)}
        language = language_of(state)
        shown = ordered[:MAX_LISTED]
        lines = [_line(n, d) for n, d in enumerate(shown, start=1)]
        # the conditions as the run holds them: a redacted author stays its placeholder in the answer
        asked = SearchFilters.parse(state.get("search_filters"))
        answer = "\n".join([_head(len(ordered), conditions_text(asked, language), sort, language), *lines])
        if len(ordered) > len(shown):
            more = messages.pick(messages.LISTED_MORE, language)
            answer += "\n" + more.format(more=len(ordered) - len(shown), shown=len(shown))
        # an author's name says what was asked about: the log counts the names, never says them
        logged = filters.without_access().model_copy(update={"authors": None}).conditions()
        log.info(
            "metadata route: %d documents match %s (+%d authors)", len(ordered), logged, len(filters.authors or [])
        )
        # the output rail checks an answer against its passages: each line is what the store holds
        first = {str(p.get("chunk_id")): str(p.get("text") or "") for p in payloads}
        passages = [
            _passage(n, d, "\n".join(x for x in (line, first.get(str(d.chunk_id), "")) if x))
            for n, (d, line) in enumerate(zip(shown, lines, strict=True), start=1)
        ]
        path = "metadata"
        if summarise and shown:
            try:
                answer += "\n\n" + await _summary(c, ctx, state, passages, language)
                path = "llm"
            except LLMUnavailable as e:  # the list stands alone
                log_error("llm", "list_documents", state, e)
        return {
            "answer": answer,
            "sources": [_source(n, d) for n, d in enumerate(shown, start=1)],
            "passages": passages,
            "confidence": 1.0,
            "path": path,
        }

    return list_documents


def _scroll(c: Components, collection: str, fields: Any, where: Any) -> list[dict[str, Any]]:
    """The payloads of every chunk of ``collection`` that passes ``where``."""
    return [p.payload or {} for p in c.index(collection).scroll(fields=fields, scroll_filter=where)]


def as_search_results(
    docs: list[ListedDocument], payloads: list[dict[str, Any]], state: RAGState, homes: dict[str, str] | None = None
) -> dict[str, Any]:
    """Search mode: the listed documents as grouped results (each with its first chunk), ``top_k``
    of them after ``offset``; every one meets the conditions, so each scores 1. ``homes``: each
    first chunk's collection, when several were read."""
    first = {str(p.get("chunk_id")): p for p in payloads}
    offset = int(state.get("offset") or 0)
    page = docs[offset : offset + int(state.get("top_k") or len(docs))]
    homes = homes or {}
    chunks = [
        hit_to_result(
            offset + n,
            first.get(str(d.chunk_id)) or {"doc_id": d.doc_id, "title": d.title},
            1.0,
            **({"collection": homes[str(d.chunk_id)]} if str(d.chunk_id) in homes else {}),
        )
        for n, d in enumerate(page, start=1)
    ]
    grouped = group_by_document(chunks)
    for g in grouped:
        g["rank"] += offset
    return {"results": grouped, "total": len(grouped)}


async def _summary(c: Components, ctx: Context, state: RAGState, passages: list[Passage], language: str) -> str:
    """One cited paragraph on what the listed documents say (the documents as data in the user's turn)."""
    system = ctx.list_summary_prompt.format(
        language_name=messages.LANGUAGE_NAMES.get(language, "the question's language")
    )
    asked = f"{numbered(p['text'][:SUMMARY_CHARS] for p in passages)}\n\nQuestion: {state.get('question') or ''}"
    screen = stream_screen([p["text"] for p in passages], prompt_markers(ctx))
    msgs: list[Any] = [SystemMessage(system), HumanMessage(asked)]
    reply = await c.llm.generate("generator", msgs, override=ctx.generator_model, screen=screen, run=run_of(state))
    return str(reply.content).strip()


def conditions_text(filters: Any, language: str) -> str:
    labels = messages.LISTED_CONDITIONS.get(language, messages.LISTED_CONDITIONS["en"])
    return labels["join"].join(conditions(filters, labels))


def _head(count: int, applied: str, sort: str, language: str) -> str:
    if count == 0:
        return messages.pick(messages.LISTED_NONE, language).format(conditions=applied)
    if count == 1:
        return messages.pick(messages.LISTED_ONE, language).format(conditions=applied)
    orders = messages.LISTED_ORDER.get(language, messages.LISTED_ORDER["en"])
    return messages.pick(messages.LISTED, language).format(count=count, conditions=applied, order=orders[sort])


def _line(n: int, d: ListedDocument) -> str:
    parts = [d.title]
    if d.authors:
        names = ", ".join(d.authors[:_AUTHORS_SHOWN]) + (" et al." if len(d.authors) > _AUTHORS_SHOWN else "")
        parts.append(f"{names} ({d.year})" if d.year else names)
    elif d.when:
        parts.append(d.when)
    parts.append(d.place)
    if d.tags:
        parts.append(" ".join(f"#{t}" for t in d.tags))
    return f"{n}. " + " · ".join(parts) + f" [{n}]"


def _source(n: int, d: ListedDocument) -> Source:
    return Source(n=n, doc_id=d.doc_id, source=d.source, title=d.title, section="", score=None, chunk_ids=[d.chunk_id])


def _passage(n: int, d: ListedDocument, line: str) -> Passage:
    return Passage(
        n=n,
        text=line,
        doc_id=d.doc_id,
        chunk_ids=[d.chunk_id],
        source=d.source,
        title=d.title,
        section="",
        score=None,
        parent_id=None,
        extent="chunk",
    )


list_failed = Fallback(
    breaker="vector_store",
    goto="fallback_answer",
    update=lambda why: {"fallback_reason": f"the index could not be read ({why})"},
)
"""Store down or slow: the polite fallback, with the reason."""
