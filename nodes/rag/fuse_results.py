"""Fusion of the dense and BM25 lists (and of several phrasings) by the run's method (retrieval/fusion.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from components.resilience.errors import ServiceUnavailable
from components.retrieval import fusion
from components.retrieval.hits import Hit, hydrate
from components.retrieval.results import of_first_documents
from components.text.language import written_in
from graph.context import Context
from graph.retrieval_state import RetrievalState
from nodes.rag.common import depth
from nodes.types import RetrievalNode as Node


def make(c: Components) -> Node:
    async def fuse_results(state: RetrievalState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        t0 = time.perf_counter()
        dense = [[Hit.from_dict(h) for h in q] for q in state.get("dense_hits") or []]
        lexical = [[Hit.from_dict(h) for h in q] for q in state.get("bm25_hits") or []]
        answered = sorted(set(state.get("retrievers") or []))
        if not answered:
            raise ServiceUnavailable("Neither the vector store nor BM25 answered; check `rag status` and try again.")
        params = fusion.FusionParams(k=ctx.rrf_k, weights={"dense": ctx.dense_weight, "bm25": ctx.bm25_weight})
        method = fusion.get(ctx.fusion)
        scripts = [written_in(q) for q in state.get("queries") or []]
        fused = fusion.fuse(dense, lexical, k=params.k, weights=params.weights, method=method.name, scripts=scripts)
        keep = max(ctx.rerank_candidates, depth(state))
        # grouped, top_k counts documents: every fused chunk of the first top_k documents stays
        head = of_first_documents(fused, keep, _doc_id) if state.get("group_by_document") else fused[:keep]
        t1 = time.perf_counter()
        # the retrievers listed doc ids only (hits.LISTED): the kept chunks get their payloads now
        head = await asyncio.to_thread(hydrate, head, c.index(state["collection"]).payloads)
        t2 = time.perf_counter()
        candidates = []
        for h in head:
            d = h.to_dict()
            d["fused_score"] = h.score
            # 0..1: a chunk ranked first by every retriever that answered scores 1.0
            d["score"] = method.scaled(h.score, params, answered)
            candidates.append(d)
        timings = {"fusion": (t1 - t0) * 1000, "payloads": (t2 - t1) * 1000}
        return {"candidates": candidates, "timings_ms": timings}

    return fuse_results


def _doc_id(h: Hit) -> object:
    return h.payload.get("doc_id")
