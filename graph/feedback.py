"""Feedback on answers: a user's good or bad, tied to the thread, checkpoint and request it judges.

    async with open_rag_graph(components) as graph:
        record = await give_feedback(graph, components, thread_id, "bad", reason="wrong year")

The answer is read from the thread's checkpoint (the latest, or ``checkpoint_id``), so what is
stored is what the user saw: question, answer, sources, the passages it was drawn from, and the
index version it was made on. The reason passes the same personal-data redaction as questions.
:func:`review` marks feedback on answers from an older index version, and :func:`golden_lines`
turns bad answers into lines of the evaluation runner's input (``rag eval qa``), the reference
left empty for a reviewer to fill.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langchain_core.messages import BaseMessage

from components.factory import Components
from components.resilience.errors import CollectionNotFound
from components.stores.feedback import VERDICTS, FeedbackError, FeedbackRecord, Verdict
from components.text.messages import is_decline
from graph.context import Context
from guardrails.pii import redact_personal_data

log = logging.getLogger(__name__)

#: passages kept with a verdict (the evaluation runner scores the top 5)
CONTEXTS_KEPT = 5


async def give_feedback(
    graph: Any,
    c: Components,
    thread_id: str,
    verdict: str,
    reason: str = "",
    *,
    checkpoint_id: str | None = None,
    context: Context | None = None,
) -> FeedbackRecord:
    """Store ``verdict`` on the answer at the thread's latest checkpoint (or ``checkpoint_id``).

    ``context`` is the Context the answer was asked with (user, tenant, access groups): a good
    answer becomes an example for that audience's later questions, and only theirs.
    """
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    snapshot = await graph.aget_state({"configurable": configurable})
    at = (snapshot.config or {}).get("configurable", {}).get("checkpoint_id") or checkpoint_id
    where = f"checkpoint {checkpoint_id} of thread {thread_id!r}" if checkpoint_id else f"thread {thread_id!r}"
    return await store_feedback(c, dict(snapshot.values or {}), thread_id, at, verdict, reason, context, where)


async def store_feedback(
    c: Components,
    values: dict[str, Any],
    thread_id: str,
    checkpoint_id: str | None,
    verdict: str,
    reason: str = "",
    context: Context | None = None,
    where: str = "",
) -> FeedbackRecord:
    """Store a verdict on the last answer of a thread state ``values`` (messages as LangChain
    messages, or as the dicts the LangGraph API returns)."""
    if verdict not in VERDICTS:
        raise FeedbackError(f"The verdict is 'good' or 'bad', not {verdict!r}.")
    ctx = context or Context()
    messages = list(values.get("messages") or [])
    last_ai = next((m for m in reversed(messages) if _kind(m) == "ai"), None)
    if last_ai is None:
        raise FeedbackError(
            f"There is no answer in {where or f'thread {thread_id!r}'}: give the thread id that `rag ask` printed "
            "(or that your app passed as configurable.thread_id)."
        )
    question = next((str(_field(m, "content")) for m in reversed(messages) if _kind(m) == "human"), "")
    meta = dict(_field(m=last_ai, name="response_metadata") or {})
    trace = dict(values.get("trace") or {})
    results = list(values.get("results") or [])[:CONTEXTS_KEPT]
    language = str(values.get("language") or "")
    record = FeedbackRecord(
        thread_id=thread_id,
        verdict=_verdict(verdict),
        question=question,
        answer=str(_field(last_ai, "content")),
        reason=await asyncio.to_thread(redact_personal_data, reason.strip(), language or None),
        checkpoint_id=checkpoint_id,
        request_id=meta.get("request_id") or values.get("request_id"),
        sources=list(meta.get("sources") or values.get("sources") or []),
        contexts=[str(r.get("text") or "") for r in results],
        context_ids=[str(r.get("doc_id") or "") for r in results],
        collection=str(trace.get("collection") or c.settings.collection),
        index_version=meta.get("index_version", trace.get("index_version")),
        user_id=ctx.user_id,
        tenant=ctx.tenant,
        language=language,
    )

    def store() -> FeedbackRecord:  # opening the database and the collections blocks: off the event loop
        stored = c.feedback.add(record)
        if stored.verdict == "good" and stored.id is not None and not is_decline(stored.answer):
            c.examples(stored.collection or None).add(
                stored.id, stored.question, stored.answer, audience=ctx.audience(), index_version=stored.index_version
            )
        return stored

    stored = await asyncio.to_thread(store)
    log.info("feedback %s (%s) on thread %s, request %s", stored.id, verdict, thread_id, stored.request_id)
    return stored


def _kind(m: Any) -> str:
    return str(m.type if isinstance(m, BaseMessage) else m.get("type") or m.get("role") or "")


def _field(m: Any, name: str) -> Any:
    return getattr(m, name, None) if isinstance(m, BaseMessage) else m.get(name)


def _verdict(value: str) -> Verdict:
    return "good" if value == "good" else "bad"


def review(c: Components, records: list[FeedbackRecord]) -> list[dict[str, Any]]:
    """Each record as a dict with ``stale``: its answer came from an index version that is not
    the current one (re-ingested since, or the collection is gone)."""
    current: dict[str, int | None] = {}
    out = []
    for r in records:
        if r.collection not in current:
            try:
                current[r.collection] = int(c.index(r.collection or None).metadata().get("version", 0))
            except CollectionNotFound:
                current[r.collection] = None
        now = current[r.collection]
        stale = now is None or (r.index_version is not None and r.index_version != now)
        out.append({**r.as_dict(), "stale": stale, "current_index_version": now})
    return out


def golden_lines(reviewed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Bad answers as ``rag eval qa`` input: the question, the bad answer and why, the passages it
    was drawn from (``retrieved_contexts``: not gold, a reviewer decides);
    ``ground_truth`` empty until a reviewer writes the right answer."""
    return [
        {
            "id": f"feedback-{r['id']}",
            "question": r["question"],
            "ground_truth": "",
            "bad_answer": r["answer"],
            "reason": r["reason"],
            "retrieved_contexts": r["contexts"],
            "retrieved_context_ids": r["context_ids"],
            "thread_id": r["thread_id"],
            "checkpoint_id": r["checkpoint_id"],
            "request_id": r["request_id"],
            "index_version": r["index_version"],
            "stale": r["stale"],
        }
        for r in reviewed
    ]
