"""Semantic cache: a question close enough to one answered before returns that answer at once.

The scope of an entry (``cache_scope``) holds the index version, the filters and who asks, so
re-ingesting, other filters or another user never get an answer that was not theirs. A follow-up
is looked up and stored by its standalone rewrite (``condense_question``), never by its own words;
questions carrying personal data are neither looked up nor stored.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import RAGError
from components.text import messages
from graph.context import Context
from graph.routes import cache_text, cacheable
from graph.state import RAGState
from nodes.rag.common import collections_of, log_error
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def cache_scope(c: Components, state: RAGState, ctx: Context) -> str:
    """Everything that makes two answers comparable: the collections read and their index versions,
    filters, mode, language, depth, who asks (tenant, or user without one), the access groups they
    hold, and edited prompts. Two runs that differ in any of these never share an entry."""
    read = "+".join(f"{name}|v{version}" for name, version in index_versions(c, state).items())
    filters = json.dumps(state.get("search_filters") or {}, sort_keys=True, ensure_ascii=False)
    scope = f"{read}|{filters}|{state.get('mode', 'qa')}|{state.get('language')}|{state['top_k']}|{ctx.audience()}"
    custom = ctx.custom_prompts()
    if custom:  # a run with its own wording gets its own answers
        digest = hashlib.sha256(json.dumps(custom, sort_keys=True).encode()).hexdigest()[:16]
        scope += f"|prompts:{digest}"
    return scope


def index_versions(c: Components, state: RAGState) -> dict[str, int]:
    """Each collection the run reads, by its index's name, at its current version."""
    indexes = [c.index(name) for name in collections_of(state)]
    return {index.collection: int(index.metadata().get("version", 0)) for index in indexes}


def make(c: Components) -> Node:
    async def check_cache(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        if not cacheable(state, ctx):
            return {"cache_hit": False}

        def lookup() -> tuple[Any, dict[str, Any]]:
            vector = c.embedder.encode_queries([cache_text(state)])[0]
            entry = c.cache.lookup(vector, scope=cache_scope(c, state, ctx), threshold=ctx.cache_threshold)
            # the answer is of these versions (the scope says so)
            versions = index_versions(c, state)
            first = next(iter(versions))
            return entry, {"collection": first, "index_version": versions[first]}

        try:
            entry, trace = await asyncio.to_thread(lookup)
        except RAGError as e:  # the cache is an optimisation: a failure only costs the answer's time
            log_error("cache", "check_cache", state, e)
            return {"cache_hit": False}
        if entry is None:
            return {"cache_hit": False}
        value = dict(entry.value)
        log.info("cache hit for request %s (similar to %r)", state.get("request_id"), entry.question[:80])
        return {
            **value,
            "trace": trace,
            "cache_hit": True,
            "notes": [messages.CACHE_HIT.format(question=entry.question)],
        }

    return check_cache
