"""Retrieval across several collections: each searched as alone, the results merged on their score.

With ``Context.collections`` naming more than one, a search (and each retrieval of a Q&A run) runs
the retrieval subgraph once per collection (concurrently; each with its own BM25 statistics,
fusion and calibration) and merges the results on the calibrated probability of relevance, which
is on one scale whatever the collection (the same embedding model and relevance model), a hot
collection winning near-ties against a cold one (``rag ingest --tier cold``, ``Context.tier_margin``).
Every result says its ``collection``; the filters apply in each; paging (``offset``) applies to the
merged ranking. Q&A reads the merged results as it reads one collection's: the graders weigh terms by
the collections' merged statistics, and a passage's section comes from its own collection.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, get_type_hints

from langgraph.runtime import Runtime

from components.factory import Components
from components.retrieval.policy import tier_of, tiered
from components.text import messages
from graph.context import Context
from graph.retrieval_state import RetrievalInput, Settled
from graph.state import RAGState
from nodes.rag.common import collections_of
from nodes.types import RAGNode as Node

_REQUEST_KEYS = tuple(get_type_hints(RetrievalInput, include_extras=False))
_SETTLED_KEYS = tuple(get_type_hints(Settled, include_extras=False))
_NOTHING_RELEVANT = tuple(t.split("{")[0] for t in messages.NOTHING_RELEVANT.values())


def make(c: Components, retrieval: Any) -> Node:
    """``retrieval``: the compiled retrieval subgraph, run once per collection."""

    async def retrieve_collections(state: RAGState, runtime: Runtime[Context]) -> dict[str, Any]:
        ctx = runtime.context or Context()
        offset, top_k = int(state.get("offset") or 0), int(state.get("top_k") or 0)
        request = {k: state[k] for k in _REQUEST_KEYS if k in state}  # type: ignore[literal-required]
        # each collection ranks the whole head; paging applies to the merged ranking
        request.update(offset=0, top_k=top_k + offset)

        async def one(name: str) -> dict[str, Any]:
            out: dict[str, Any] = await retrieval.ainvoke(
                {**request, "collection": name}, context=dataclasses.replace(ctx, collection=name, collections=())
            )
            return out

        names = collections_of(state)
        outs = await asyncio.gather(*(one(name) for name in names))
        merged = [{**r, "collection": name} for name, out in zip(names, outs, strict=True) for r in out["results"]]
        tiers = await asyncio.to_thread(lambda: {n: tier_of(c.index(n).metadata()) for n in names})
        merged = [dict(r) for r in tiered(merged, tiers, ctx.tier_margin)]  # stable: a tie keeps the order given
        page = [{**r, "rank": i} for i, r in enumerate(merged[offset : offset + top_k], start=offset + 1)]
        notes = list(dict.fromkeys(n for out in outs for n in out.get("notes") or []))
        if page:  # one collection's "nothing relevant" says nothing when another found something
            notes = [n for n in notes if not n.startswith(_NOTHING_RELEVANT)]
        # the request as retrieval settled it (phrasings, filters, route) is the same in each; the
        # first collection's trace stands for the run's, as its `collection` does
        settled = {k: outs[0][k] for k in _SETTLED_KEYS if k in outs[0]}
        update: dict[str, Any] = {**settled, "results": page, "total": len(page), "notes": notes}
        if state.get("debug"):
            per = dict(zip(names, (o.get("debug_info") for o in outs), strict=True))
            update["debug_info"] = {"collections": per}
        return update

    return retrieve_collections
