"""Query analysis: language, filters stated in the question, and the user's profile defaults.

Rules find dates and periods, ``#tags`` and vault names known to the index; with an LLM the
router model extracts the same fields as structured output and the two are merged (rules
win where both speak, since they are exact). Filters the caller passed always win over both.
The profile (``runtime.store``, namespace ``("users", user_id)``, key ``"profile"``, value
``{"filters": {...}}``) only fills filters nobody else set.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import date
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from components.factory import Components, Known
from components.heuristics.analysis import QueryAnalysis, about_the_user
from components.heuristics.analysis import analyze_query as analyze_rules
from components.resilience.errors import RAGError
from components.retrieval.filters import SearchFilters
from graph.context import Context
from graph.profiles import read_profile
from graph.state import RAGState
from nodes.rag.common import ask_llm, collections_of, log_error
from nodes.rag.rails import placeholders, raw_words
from nodes.rag.schemas import ExtractedFilters
from nodes.types import RAGNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def analyze_query(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        question = state.get("question") or ""
        given = dict(state.get("filters") or {})
        analysis: dict[str, Any] = {"path": "rules", "explanations": []}
        found: dict[str, Any] = {}
        searching = state.get("mode") == "search"
        if searching and ctx.extract_filters and could_list(question):
            # search takes its query as given, unless the query is nothing but conditions
            # ("#料理 2025"): then it lists the documents that meet them (the metadata route)
            known = await asyncio.to_thread(c.known_values_of, collections_of(state), ctx.access_groups)
            rules = rules_of(state, question, known)
            if rules.structured:
                found = dict(rules.filters)
                analysis.update(explanations=list(rules.explanations), structured=True)
        elif not searching and ctx.extract_filters and question and not state.get("documents"):
            # (a question asked of documents given with it reads them, not the index: no filters)
            known = await asyncio.to_thread(c.known_values_of, collections_of(state), ctx.access_groups)
            vaults, tags = known.vaults, known.tags
            rules = rules_of(state, question, known)
            found = dict(rules.filters)
            analysis.update(explanations=list(rules.explanations), structured=rules.structured)
            if rules.filters:  # the topic left once the words that only stated filters are cut
                analysis["search_text"] = rules.search_text
            llm = await ask_llm(
                c,
                ctx,
                state,
                node="analyze_query",
                role="router",
                schema=ExtractedFilters,
                messages=[
                    SystemMessage(
                        ctx.analyze_prompt.format(
                            today=date.today().isoformat(),
                            vaults=", ".join(sorted(vaults)) or "none",
                            tags=", ".join(sorted(tags)[:200]) or "none",
                        )
                    ),
                    HumanMessage(question),
                ],
                override=ctx.router_model,
            )
            if llm is not None:
                extra = _llm_filters(llm, vaults, tags)
                found = {**extra, **found}
                analysis["path"] = "llm"
                if extra:
                    analysis["explanations"].append(f"LLM: {extra}")
        profile = await read_profile(runtime.store, ctx.user_id) or {}
        defaults = dict(profile.get("filters") or {})
        merged = {**defaults, **found, **given}
        try:
            SearchFilters.parse(merged)
        except RAGError as e:  # a bad profile or extraction must not break the question
            log_error("filters", "analyze_query", state, e)
            merged = given
        analysis.update(filters_from_question=found, profile_filters=defaults, language=state.get("language"))
        return {"search_filters": merged, "analysis": analysis}

    return analyze_query


def could_list(question: str) -> bool:
    """Whether a search query may be a listing (a ``#tag``, "tagged", "by" an author, or words about the
    user's notes): only then is it analysed, so a plain search pays nothing for the metadata route."""
    lowered = f" {question.lower()} "
    return bool(question) and ("#" in question or "tagged" in lowered or " by " in lowered or about_the_user(question))


def rules_of(state: RAGState, question: str, known: Known) -> QueryAnalysis:
    """The rule-based analysis of the run's question.

    The input rail may have redacted a name that is a condition on documents ("papers written by
    Danqi Chen" reads "… by <PERSON>"). When the question's own words (``raw_words``) read as
    conditions alone and the only condition the redaction hid is an author the collections hold,
    that author is kept as its placeholder (``run_filters`` reads the name back where the store is
    read), beside the redacted reading's other filters and explanations: no redacted word reaches
    the state (decision 0012). Otherwise the redacted reading stands.
    """
    rules = analyze_known(question, known)
    own = raw_words(state, question)
    if own == question or rules.structured:
        return rules
    unredacted = analyze_known(own, known)
    visible = rules.filters.get("authors") or []
    hidden = [a for a in unredacted.filters.get("authors") or [] if a not in visible]
    others = {k: v for k, v in unredacted.filters.items() if k != "authors"}
    # only an author may be what the redaction hid; anything else and the redacted reading stands
    if not (unredacted.structured and hidden and others == {k: v for k, v in rules.filters.items() if k != "authors"}):
        return rules
    # the state keeps the placeholder; run_filters reads the name back (named_authors)
    marks = placeholders(question)
    filters = {**rules.filters, "authors": [*visible, *marks]}
    said = [f"authors+={m} from the question's own words" for m in marks]
    return replace(rules, filters=filters, explanations=[*rules.explanations, *said], structured=True)


def analyze_known(question: str, known: Known) -> QueryAnalysis:
    """The rule-based analysis, trusting only the vaults, tags and authors the collections hold."""
    return analyze_rules(
        question, known_vaults=known.vaults, known_tags=known.tags, known_authors=known.authors, today=date.today()
    )


def _llm_filters(f: ExtractedFilters, known_vaults: set[str], known_tags: set[str]) -> dict[str, Any]:
    """The LLM's extraction, keeping only values that can be true of the index."""
    out: dict[str, Any] = {}
    tags = [t.strip().lstrip("#") for t in f.tags if t.strip().lstrip("#") in known_tags]
    if tags:
        out["tags"] = tags
    vaults = [v for v in f.vaults if v in known_vaults]
    if vaults:
        out["vaults"] = vaults
    for key in ("created_from", "created_to"):
        value = getattr(f, key)
        if value:
            try:
                out[key] = date.fromisoformat(value).isoformat()
            except ValueError:
                log.info("ignoring the LLM's %s=%r (not a date)", key, value)
    return out
