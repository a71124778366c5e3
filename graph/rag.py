"""The query graph (``rag``): wiring only; nodes in ``nodes/rag``, routers in ``graph/routes`` (see ``routed``).

    guard_input → analyze_query → check_cache → route_question
        ├ vector_search → rewrite_query + prepare_search → (retrieve_dense ∥ retrieve_bm25)
        │     → fuse_results → rerank_results → grade_context
        │         ├ relevant → fetch_parents → generate_answer → check_hallucination
        │         │     ├ grounded → grade_answer ├ useful → guard_output + finish_run
        │         │     │                         ├ not useful → rewrite_query (≤ max_answer_rewrites)
        │         │     │                         └ at the cap → fallback_answer
        │         │     ├ ungrounded → generate_answer (≤ max_regenerations)
        │         │     └ at the cap → fallback_answer
        │         ├ not relevant → search_web (when on) | rewrite_query (≤ max_context_rewrites)
        │         └ at the cap → fallback_answer → guard_output + finish_run
        ├ web_search → search_web → generate_answer … | fallback_answer
        └ direct_answer → answer_directly → guard_output + finish_run
    mode="search" goes analyze_query → prepare_search → … → rerank_results → finish_run;
    a blocked question goes guard_input → finish_run; a cache hit check_cache → finish_run;
    a follow-up goes analyze_query → condense_question + check_cache (the cache keyed on its
    standalone rewrite) → finish_run | route_question, whose rewrite_query reuses that rewrite;
    a question the cache may not answer (cache off, personal data) skips the cache.
    "a + b": b runs in a's step (``chained``: one LangGraph step instead of two, both in ``steps``).

Failure handling (LangGraph's own per-node policies): dense retrieval has the vector-store
timeout and falls back to BM25 alone; BM25 falls back to dense alone; the reranker falls back
to the fused order; web search has its timeout and falls back to the polite fallback;
generation is retried on LLM errors and timeouts (LLM_TIMEOUT per attempt, LLM_RETRIES retries),
then ends the run through ``fail_run``.
"""

from __future__ import annotations

from typing import Any

from langgraph.errors import NodeTimeoutError
from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

from components.factory import Components, shared_components
from components.resilience.errors import LLMError
from graph import routes
from graph.context import Context
from graph.routed import chained, destinations, routed, timed
from graph.state import InputState, OutputState, RAGState
from nodes.rag import (
    analyze_query,
    answer_directly,
    check_cache,
    check_hallucination,
    fail_run,
    fallback_answer,
    fetch_parents,
    finish_run,
    fuse_results,
    generate_answer,
    grade_answer,
    grade_context,
    guard_input,
    guard_output,
    prepare_search,
    rerank_results,
    retrieve_bm25,
    retrieve_dense,
    rewrite_query,
    route_question,
    search_web,
)


def build_rag_graph(components: Components | None = None, *, checkpointer: Any = None, store: Any = None) -> Any:
    c = components or Components()
    s = c.settings
    b = StateGraph(RAGState, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    for module in (prepare_search, fuse_results, fetch_parents, answer_directly, fallback_answer, fail_run, finish_run):
        b.add_node(timed(module.make(c)))
    # pairs that always follow each other on the Q&A path run in one step (graph/routed.py says why)
    b.add_node(chained(timed(rewrite_query.make(c)), timed(prepare_search.make(c))))
    b.add_node(chained(timed(guard_output.make(c)), timed(finish_run.make(c))))
    # a follow-up is made standalone, then looked up in the cache, in one step
    b.add_node(
        routed(chained(timed(rewrite_query.make_condense(c)), timed(check_cache.make(c))), routes.after_cache),
        destinations=destinations(routes.after_cache),
    )
    # nodes whose router picks the next node (graph/routed.py says why not conditional edges)
    for module, router in (
        (guard_input, routes.after_guard),
        (analyze_query, routes.after_analysis),
        (check_cache, routes.after_cache),
        (route_question, routes.after_route),
        (grade_context, routes.after_context_grade),
        (check_hallucination, routes.after_hallucination_check),
        (grade_answer, routes.after_answer_grade),
    ):
        b.add_node(routed(timed(module.make(c)), router), destinations=destinations(router))
    ranked = destinations(routes.after_ranking)
    # langgraph's overloads do not list handlers that take a NodeError, hence the ignores
    b.add_node(
        timed(retrieve_dense.make(c)), timeout=s.vector_timeout, error_handler=retrieve_dense.dense_failed.handler(c)
    )  # type: ignore[call-overload]
    b.add_node(timed(retrieve_bm25.make(c)), error_handler=retrieve_bm25.bm25_failed.handler(c))  # type: ignore[call-overload]
    b.add_node(
        routed(timed(rerank_results.make(c)), routes.after_ranking),
        destinations=(*ranked, "rerank_skipped"),
        timeout=s.reranker_timeout,
        error_handler=rerank_results.rerank_failed.handler(c),
    )  # type: ignore[call-overload]
    b.add_node(routed(timed(rerank_results.make_skipped(c)), routes.after_ranking), destinations=ranked)
    b.add_node(
        routed(timed(search_web.make(c)), routes.after_web_search),
        destinations=destinations(routes.after_web_search),
        timeout=s.web_search_timeout,
        error_handler=search_web.web_failed.handler(c),
    )  # type: ignore[call-overload]
    b.add_node(
        timed(generate_answer.make(c)),
        timeout=s.llm_timeout,
        retry_policy=RetryPolicy(
            max_attempts=1 + s.llm_retries, initial_interval=0.5, retry_on=(LLMError, NodeTimeoutError)
        ),
        error_handler=generate_answer.generation_failed.handler(c),
    )  # type: ignore[call-overload]

    b.add_edge(START, "guard_input")
    for start in ("prepare_search", "rewrite_query"):
        b.add_edge(start, "retrieve_dense")
        b.add_edge(start, "retrieve_bm25")
    b.add_edge("retrieve_dense", "fuse_results")
    b.add_edge("retrieve_bm25", "fuse_results")
    b.add_edge("fuse_results", "rerank_results")
    b.add_edge("fetch_parents", "generate_answer")
    b.add_edge("generate_answer", "check_hallucination")
    b.add_edge("answer_directly", "guard_output")
    b.add_edge("fallback_answer", "guard_output")
    b.add_edge("fail_run", "finish_run")
    b.add_edge("guard_output", END)
    b.add_edge("finish_run", END)
    return b.compile(name="rag", checkpointer=checkpointer, store=store)


graph = build_rag_graph(shared_components())
