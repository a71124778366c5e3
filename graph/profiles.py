"""User profiles in the LangGraph store: where they live and how they are read and written.

A profile is ``{"filters": {...}}`` under namespace ``("users", user_id)``, key ``"profile"``.
``analyze_query`` reads it through ``runtime.store`` (``langgraph dev`` gives the graph its own
store; Python programs and the CLI get the SQLite store of ``graph/threads.py``), and ``rag
profile`` writes it; both go through these functions, so the layout is defined once.
"""

from __future__ import annotations

from typing import Any

from langgraph.store.base import BaseStore

PROFILE_KEY = "profile"


def profile_namespace(user_id: str) -> tuple[str, str]:
    """The store namespace of one user's profile."""
    return ("users", user_id)


async def read_profile(store: BaseStore | None, user_id: str) -> dict[str, Any] | None:
    """The stored profile, or None (no store, no user, nothing stored)."""
    if store is None or not user_id:
        return None
    item = await store.aget(profile_namespace(user_id), PROFILE_KEY)
    return dict(item.value) if item is not None else None


async def write_profile(store: BaseStore, user_id: str, filters: dict[str, Any]) -> dict[str, Any]:
    """Replace the user's default filters (the profile is what the next question starts from)."""
    value = {"filters": filters}
    await store.aput(profile_namespace(user_id), PROFILE_KEY, value)
    return value


async def delete_profile(store: BaseStore, user_id: str) -> None:
    await store.adelete(profile_namespace(user_id), PROFILE_KEY)
