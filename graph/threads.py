"""Conversation threads and user profiles for Python programs and the ``rag`` command.

``langgraph dev`` gives the graph its own checkpointer and store; a Python program or the
CLI has none, so a follow-up asked in another process would start from nothing. Here the
compiled Q&A graph gets a checkpointer (the thread: messages and the last run's state) and a
store (user profiles read by ``analyze_query`` through ``runtime.store``): both in one SQLite
file (default ``DATA_DIR/threads.sqlite``), or both in Postgres when ``DATABASE_URL`` names a
database (LangGraph's ``langgraph-checkpoint-postgres``), so that processes on several machines
share threads.

    async with open_rag_graph(components) as graph:
        out = await graph.ainvoke({"question": q}, {"configurable": {"thread_id": tid}})
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from langgraph._internal._constants import CONFIG_KEY_DURABILITY
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.store.base import BaseStore
from langgraph.store.sqlite.aio import AsyncSqliteStore

from components.factory import Components
from components.resilience.errors import ConfigurationError
from components.settings import Settings
from components.stores import database
from graph.profiles import delete_profile, read_profile, write_profile
from graph.rag import build_rag_graph

log = logging.getLogger(__name__)

__all__ = [
    "default_db_path",
    "delete_profile",
    "open_rag_graph",
    "open_store",
    "read_profile",
    "threads_location",
    "write_profile",
]

DB_NAME = "threads.sqlite"


def default_db_path(settings: Settings) -> Path:
    """Where threads and profiles live without ``DATABASE_URL``: next to the BM25 cache."""
    return Path(settings.data_dir) / DB_NAME


def _on_postgres(settings: Settings, db_path: Path | None) -> bool:
    """Postgres when ``DATABASE_URL`` names it and the caller did not ask for a file."""
    database.check_url(settings.database_url)
    return db_path is None and database.is_postgres(settings.database_url)


def threads_location(settings: Settings, db_path: Path | None = None) -> str:
    """Where threads and profiles are kept, for messages (a Postgres URL without its password)."""
    if _on_postgres(settings, db_path):
        return database.location(settings.database_url)
    return str(db_path or default_db_path(settings))


def _prepare(db_path: Path) -> str:
    db_path.parent.mkdir(parents=True, exist_ok=True)
    return str(db_path)


def _postgres_module(name: str) -> Any:
    """LangGraph's Postgres saver or store module, or a message saying what to install."""
    import importlib

    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise ConfigurationError(
            f"DATABASE_URL names Postgres, which needs {e.name} for threads and profiles: "
            f"{database.POSTGRES_EXTRA} (or unset DATABASE_URL to keep them in DATA_DIR/{DB_NAME})."
        ) from None


@asynccontextmanager
async def _reachable(settings: Settings) -> AsyncIterator[None]:
    """A Postgres that cannot be reached or refuses the login is a setting to fix, said in words."""
    try:
        yield
    except Exception as e:
        if type(e).__module__.startswith("psycopg") and type(e).__name__ in {"OperationalError", "PoolTimeout"}:
            raise ConfigurationError(
                f"The database at DATABASE_URL ({database.redacted(settings.database_url)}) cannot be used: "
                f"{str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__}. Check that Postgres "
                f"runs and the URL's user, password and database, or unset DATABASE_URL to keep threads in "
                f"DATA_DIR/{DB_NAME}."
            ) from None
        raise


@asynccontextmanager
async def _opened(settings: Settings, db_path: Path | None, sqlite: Any, postgres: str) -> AsyncIterator[Any]:
    """A LangGraph saver or store, set up: ``postgres`` (module:class) with ``DATABASE_URL``, else
    ``sqlite``'s class on the file."""
    if _on_postgres(settings, db_path):
        module, name = postgres.split(":")
        opened = getattr(_postgres_module(module), name).from_conn_string(database.libpq_url(settings.database_url))
    else:
        opened = sqlite.from_conn_string(_prepare(db_path or default_db_path(settings)))
    async with _reachable(settings), opened as made:
        await made.setup()
        yield made


def open_store(settings: Settings, *, db_path: Path | None = None) -> AbstractAsyncContextManager[BaseStore]:
    """The profile store alone (``rag profile`` needs no graph, and so no model)."""
    return _opened(settings, db_path, AsyncSqliteStore, "langgraph.store.postgres.aio:AsyncPostgresStore")


def open_checkpointer(
    settings: Settings, *, db_path: Path | None = None
) -> AbstractAsyncContextManager[BaseCheckpointSaver[Any]]:
    """The threads' checkpointer: LangGraph's Postgres saver with ``DATABASE_URL``, else SQLite."""
    return _opened(settings, db_path, AsyncSqliteSaver, "langgraph.checkpoint.postgres.aio:AsyncPostgresSaver")


@asynccontextmanager
async def open_rag_graph(components: Components, *, db_path: Path | None = None) -> AsyncIterator[Any]:
    """The compiled Q&A graph with threads and profiles persisted (SQLite file or Postgres).

    Two connections (the saver's and the store's): each library manages its own transactions
    and locks; on SQLite, WAL mode (set by the saver) lets a second process read a thread while
    this one writes. ``db_path`` asks for that SQLite file whatever ``DATABASE_URL`` says.
    """
    settings = components.settings
    async with (
        open_checkpointer(settings, db_path=db_path) as saver,
        open_store(settings, db_path=db_path) as store,
    ):
        log.debug("threads and profiles in %s", threads_location(settings, db_path))
        graph = build_rag_graph(components, checkpointer=saver, store=store)
        # durability "exit": a run writes one checkpoint, when it ends. The default ("async")
        # also saves the run's input, which holds the question as the caller sent it, before
        # the input rail has redacted personal data from it; a Q&A run has no interrupt to resume.
        # A caller may still pass durability= to ainvoke. (LangGraph reads the default from this
        # configurable key; tests/integration/test_redaction.py fails if that changes.)
        yield graph.with_config(configurable={CONFIG_KEY_DURABILITY: "exit"})
