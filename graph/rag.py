"""The query graph (``rag``): wiring only; nodes in ``nodes/rag``, routers in ``graph/routes``.

    guard_input → analyze_query → check_cache → route_question
        ├ vector_search → rewrite_query → retrieve (several collections: retrieve_collections) → grade_context
        │         ├ relevant → fetch_parents → generate_answer → check_hallucination
        │         │     ├ grounded → grade_answer ├ useful → guard_output → finish_run
        │         │     │                         ├ not useful → rewrite_query (≤ max_answer_rewrites)
        │         │     │                         └ at the cap → fallback_answer
        │         │     ├ ungrounded → generate_answer (≤ max_regenerations)
        │         │     └ at the cap → fallback_answer
        │         ├ not relevant → search_web (when on) | rewrite_query (≤ max_context_rewrites)
        │         └ at the cap → fallback_answer → guard_output → finish_run
        ├ metadata_search → list_documents → guard_output → finish_run
        ├ web_search → search_web → generate_answer … | fallback_answer
        ├ given_documents → read_documents → generate_answer … | fallback_answer (documents given
        │         with the question: their chunks ranked by rank-bm25 against it, screened)
        └ direct_answer → answer_directly → guard_output → finish_run
    mode="search" goes analyze_query → retrieve → finish_run (a query of conditions alone:
    analyze_query → list_documents → finish_run, the documents as results; several collections:
    analyze_query → retrieve_collections → finish_run, the retrieval run per collection and merged,
    as Q&A's retrievals are);
    a blocked question goes guard_input → finish_run; a cache hit check_cache → finish_run;
    a follow-up goes analyze_query → condense_question → check_cache (the cache keyed on its
    standalone rewrite) → finish_run | route_question, whose rewrite_query reuses that rewrite;
    a question the cache may not answer (cache off, personal data) skips the cache.

``retrieve`` is the retrieval subgraph (``graph/retrieval.py``: prepare_search → (retrieve_dense ∥
retrieve_bm25) → fuse_results → rerank_results), with its own small state. Every branch is a
conditional edge whose router (``graph/routes.py``, a pure function of state and the run's caps)
names the next node in its ``Literal`` return type, so Studio draws each exit.

Failure handling (LangGraph's own per-node policies; retrieval's are in its subgraph): web
search has its timeout and falls back to the polite fallback; generation is retried on LLM
errors and timeouts (LLM_TIMEOUT per attempt, LLM_RETRIES retries), then ends the run through
``fail_run``.
"""

from __future__ import annotations

from typing import Any

from langgraph.errors import NodeTimeoutError
from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

from components.factory import Components
from components.resilience.errors import LLMError
from graph import routes
from graph.context import Context
from graph.retrieval import build_retrieval_graph
from graph.retrieval_state import RetrievalInput
from graph.state import InputState, OutputState, RAGState
from graph.steps import timed
from nodes.rag import (
    analyze_query,
    answer_directly,
    check_cache,
    check_hallucination,
    fail_run,
    fallback_answer,
    fetch_parents,
    finish_run,
    generate_answer,
    grade_answer,
    grade_context,
    guard_input,
    guard_output,
    list_documents,
    read_documents,
    retrieve_collections,
    rewrite_query,
    route_question,
    search_web,
)


def build_rag_graph(components: Components | None = None, *, checkpointer: Any = None, store: Any = None) -> Any:
    c = components or Components()
    s = c.settings
    b = StateGraph(RAGState, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    for make in (
        guard_input.make,
        analyze_query.make,
        rewrite_query.make_condense,
        check_cache.make,
        route_question.make,
        rewrite_query.make,
        grade_context.make,
        fetch_parents.make,
        check_hallucination.make,
        grade_answer.make,
        answer_directly.make,
        fallback_answer.make,
        fail_run.make,
        guard_output.make,
        finish_run.make,
    ):
        b.add_node(timed(make(c)))
    # retrieval reads only its request from this state (its input schema); a search of several
    # collections runs it once per collection and merges the results
    retrieval = build_retrieval_graph(c)
    b.add_node("retrieve", retrieval, input_schema=RetrievalInput)
    b.add_node(timed(retrieve_collections.make(c, retrieval)))
    b.add_node(
        timed(list_documents.make(c)), timeout=s.vector_timeout, error_handler=list_documents.list_failed.handler(c)
    )
    b.add_node(timed(search_web.make(c)), timeout=s.web_search_timeout, error_handler=search_web.web_failed.handler(c))
    b.add_node(timed(read_documents.make(c)))
    b.add_node(
        timed(generate_answer.make(c)),
        timeout=s.llm_timeout,
        retry_policy=RetryPolicy(
            max_attempts=1 + s.llm_retries, initial_interval=0.5, retry_on=(LLMError, NodeTimeoutError)
        ),
        error_handler=generate_answer.generation_failed.handler(c),
    )

    b.add_edge(START, "guard_input")
    b.add_conditional_edges("guard_input", routes.after_guard)
    b.add_conditional_edges("analyze_query", routes.after_analysis)
    b.add_edge("condense_question", "check_cache")
    b.add_conditional_edges("check_cache", routes.after_cache)
    b.add_conditional_edges("route_question", routes.after_route)
    b.add_conditional_edges("rewrite_query", routes.retrieval)
    b.add_conditional_edges("retrieve", routes.after_retrieval)
    b.add_conditional_edges("retrieve_collections", routes.after_retrieval)
    b.add_conditional_edges("grade_context", routes.after_context_grade)
    b.add_conditional_edges("search_web", routes.after_reading)
    b.add_conditional_edges("read_documents", routes.after_reading)
    b.add_edge("fetch_parents", "generate_answer")
    b.add_edge("generate_answer", "check_hallucination")
    b.add_conditional_edges("check_hallucination", routes.after_hallucination_check)
    b.add_conditional_edges("grade_answer", routes.after_answer_grade)
    b.add_edge("answer_directly", "guard_output")
    b.add_edge("list_documents", "guard_output")
    b.add_edge("fallback_answer", "guard_output")
    b.add_edge("guard_output", "finish_run")
    b.add_edge("fail_run", "finish_run")
    b.add_edge("finish_run", END)
    return b.compile(name="rag", checkpointer=checkpointer, store=store)
