"""Conversation threads and user profiles for Python programs and the ``rag`` command.

``langgraph dev`` gives the graph its own checkpointer and store; a Python program or the
CLI has none, so a follow-up asked in another process would start from nothing. Here the
compiled Q&A graph gets a SQLite checkpointer (the thread: messages and the last run's
state) and a SQLite store (user profiles read by ``analyze_query`` through
``runtime.store``), both in one file (default ``DATA_DIR/threads.sqlite``) so that a
thread, the profiles and the index's other local state travel together.

    async with open_rag_graph(components) as graph:
        out = await graph.ainvoke({"question": q}, {"configurable": {"thread_id": tid}})
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from langgraph._internal._constants import CONFIG_KEY_DURABILITY
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.sqlite.aio import AsyncSqliteStore

from components.factory import Components
from components.settings import Settings
from graph.profiles import delete_profile, read_profile, write_profile
from graph.rag import build_rag_graph

log = logging.getLogger(__name__)

__all__ = ["default_db_path", "delete_profile", "open_rag_graph", "open_store", "read_profile", "write_profile"]

DB_NAME = "threads.sqlite"


def default_db_path(settings: Settings) -> Path:
    """Where threads and profiles live when the caller does not say: next to the BM25 cache."""
    return Path(settings.data_dir) / DB_NAME


def _prepare(db_path: Path) -> str:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    return str(db_path)


@asynccontextmanager
async def open_store(db_path: Path) -> AsyncIterator[AsyncSqliteStore]:
    """The profile store alone (``rag profile`` needs no graph, and so no model)."""
    async with AsyncSqliteStore.from_conn_string(_prepare(db_path)) as store:
        await store.setup()
        yield store


@asynccontextmanager
async def open_rag_graph(components: Components, *, db_path: Path | None = None) -> AsyncIterator[Any]:
    """The compiled Q&A graph with threads and profiles persisted in one SQLite file.

    Two connections to the same file (the saver's and the store's): each library manages
    its own transactions and locks, and SQLite's WAL mode (set by the saver) lets a second
    process read a thread while this one writes.
    """
    path = db_path or default_db_path(components.settings)
    conn = _prepare(path)
    async with AsyncSqliteSaver.from_conn_string(conn) as saver, open_store(path) as store:
        await saver.setup()
        log.debug("threads and profiles in %s", path)
        graph = build_rag_graph(components, checkpointer=saver, store=store)
        # durability "exit": a run writes one checkpoint, when it ends. The default ("async")
        # also saves the run's input, which holds the question as the caller sent it, before
        # the input rail has redacted personal data from it; a Q&A run has no interrupt to resume.
        # A caller may still pass durability= to ainvoke. (LangGraph reads the default from this
        # configurable key; tests/integration/test_redaction.py fails if that changes.)
        yield graph.with_config(configurable={CONFIG_KEY_DURABILITY: "exit"})
