"""Feedback over HTTP, next to the graphs `langgraph dev` (or `langgraph up`) serves.

A custom route of the LangGraph API server (``langgraph.json`` → ``http.app``), for chat apps
that call the server rather than Python:

    POST /feedback  {"thread_id": "...", "verdict": "good"|"bad", "reason": "...", "checkpoint_id": "..."}
        → 201 {the stored record, with its id}; 400 for a bad verdict, 404 for a thread with no answer
    GET  /feedback?verdict=bad&limit=20
        → 200 [records, newest first, each with "stale"]; 403 without the reviewer role

The answer is read from the thread through the server's own API (``langgraph_sdk.get_client()``
in-process), so it is the answer the chat app's user saw; storing, redaction and examples are
``graph/feedback.py``'s, the same as for Python callers and ``rag feedback``. Who gives the verdict
(user, tenant, access groups: a few-shot example's audience) is the authenticated caller; a body
that claims another is refused with 403.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langgraph_sdk.auth.exceptions import HTTPException
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from components.factory import shared_components
from components.resilience.errors import RAGError
from components.stores.feedback import VERDICTS, FeedbackError
from graph.auth import REVIEWER, as_context, caller_from_user, claims_within
from graph.context import Context
from graph.feedback import review, store_feedback

log = logging.getLogger(__name__)


async def post_feedback(request: Request) -> JSONResponse:
    try:
        body = await request.json()
    except ValueError:
        return _error(400, 'The body must be JSON: {"thread_id": "...", "verdict": "good"|"bad", "reason": "..."}')
    thread_id = str(body.get("thread_id") or "") if isinstance(body, dict) else ""
    if not thread_id or body.get("verdict") not in VERDICTS:
        return _error(400, 'Give "thread_id" and "verdict" ("good" or "bad"); "reason" is optional.')
    checkpoint_id = body.get("checkpoint_id") or None
    from langgraph_sdk import get_client
    from langgraph_sdk.errors import NotFoundError

    caller = caller_from_user(request.user)
    try:  # who gives the verdict is the credential's caller (graph/auth.py), never the body's claim
        claims_within(caller, body, "The feedback's body")
    except HTTPException as e:
        return _error(e.status_code, str(e.detail))
    missing = _error(404, f"There is no thread {thread_id!r} on this server.")
    try:  # the in-process client reads as the server: the owner is checked here
        thread: Any = await get_client().threads.get(thread_id)
        if (thread.get("metadata") or {}).get("owner") not in (None, caller.user_id):
            return missing  # another user's thread answers as one that does not exist
        state: Any = await get_client().threads.get_state(thread_id, checkpoint_id=checkpoint_id)
    except NotFoundError:
        return missing
    ctx = Context(**as_context(caller))
    at = ((state or {}).get("checkpoint") or {}).get("checkpoint_id") or checkpoint_id
    try:
        record = await store_feedback(
            shared_components(),
            dict((state or {}).get("values") or {}),
            thread_id,
            at,
            str(body["verdict"]),
            str(body.get("reason") or ""),
            ctx,
        )
    except FeedbackError as e:
        return _error(404 if "no answer" in str(e) else 400, str(e))
    except RAGError as e:
        return _error(503, str(e))
    return JSONResponse(record.as_dict(), status_code=201)


async def list_feedback(request: Request) -> JSONResponse:
    if REVIEWER not in caller_from_user(request.user).roles:
        return _error(403, f"Listing feedback needs the {REVIEWER!r} role: it holds every user's questions.")
    verdict = request.query_params.get("verdict")
    if verdict is not None and verdict not in VERDICTS:
        return _error(400, "verdict is good or bad")
    raw_limit = request.query_params.get("limit") or ""
    if raw_limit and not (raw_limit.isascii() and raw_limit.isdigit()):
        return _error(400, f"limit is the number of records to list, a whole number such as 20 (got {raw_limit!r})")
    limit = int(raw_limit or 0) or None
    c = shared_components()

    def reviewed() -> list[dict[str, Any]]:  # opening the database blocks: off the event loop
        return review(c, c.feedback.list(verdict, limit=limit))  # type: ignore[arg-type]

    return JSONResponse(await asyncio.to_thread(reviewed))


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


app = Starlette(routes=[Route("/feedback", post_feedback, methods=["POST"]), Route("/feedback", list_feedback)])
