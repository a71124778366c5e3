"""The one database setting: ``DATABASE_URL`` names a Postgres database, or nothing does.

Unset, each local store keeps its own SQLite file under ``DATA_DIR`` (threads and profiles,
feedback, the semantic cache); set to ``postgresql://user:pass@host:5432/db``, all of them live in
that one database, so several processes and machines share them. This module turns the setting
into what each library wants (SQLAlchemy for feedback and the cache, a libpq string for
LangGraph's Postgres checkpointer and store) and says plainly what to install when a driver is
missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from components.resilience.errors import ConfigurationError

if TYPE_CHECKING:
    import sqlalchemy as sa

POSTGRES_EXTRA = "pip install -e '.[postgres]'"
"""What installs the Postgres drivers (psycopg, LangGraph's Postgres checkpointer)."""

_SCHEMES = ("postgresql://", "postgres://", "postgresql+psycopg://")


def is_postgres(database_url: str) -> bool:
    """Whether ``DATABASE_URL`` names a Postgres database."""
    return database_url.startswith(_SCHEMES)


def check_url(database_url: str) -> None:
    """Refuse a setting that names neither Postgres nor SQLite, before anything connects."""
    if database_url and not (is_postgres(database_url) or database_url.startswith("sqlite:///")):
        raise ConfigurationError(
            f"DATABASE_URL {redacted(database_url)!r} is not a Postgres URL: use "
            "postgresql://user:password@host:5432/dbname, or unset it to keep SQLite files under DATA_DIR."
        )


def libpq_url(database_url: str) -> str:
    """``DATABASE_URL`` as psycopg and LangGraph's Postgres savers take it (no SQLAlchemy driver)."""
    for prefix in _SCHEMES:
        if database_url.startswith(prefix):
            return "postgresql://" + database_url[len(prefix) :]
    raise ConfigurationError(f"DATABASE_URL {redacted(database_url)!r} is not a Postgres URL")


def sqlalchemy_url(database_url: str, sqlite_file: Path) -> str:
    """The SQLAlchemy URL for ``DATABASE_URL`` (Postgres through psycopg 3), or ``sqlite_file``."""
    check_url(database_url)
    if not database_url:
        return f"sqlite:///{sqlite_file}"
    if database_url.startswith("sqlite:///"):
        return database_url
    return "postgresql+psycopg://" + libpq_url(database_url).removeprefix("postgresql://")


def redacted(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host = rest.rpartition("@")
    user = credentials.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in credentials else url


def sqlite_file(url: str) -> Path | None:
    """The file a ``sqlite:///`` URL names, or None for any other database."""
    return Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else None


def location(url: str) -> str:
    """Where a SQLAlchemy or ``DATABASE_URL`` URL keeps its data, as users see it: the SQLite file's
    path, or the Postgres URL as they would set it, without its password."""
    if (path := sqlite_file(url)) is not None:
        return str(path)
    return redacted(libpq_url(url)) if is_postgres(url) else redacted(url)


def engine(url: str, *, what: str) -> sa.Engine:
    """A SQLAlchemy engine for ``url`` (from :func:`sqlalchemy_url`); ``what`` names the store in errors.

    A SQLite file's folder is created and the file put in WAL mode, so that a reader in another
    process does not wait for a writer.
    """
    import sqlalchemy as sa

    if (path := sqlite_file(url)) is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    try:
        eng = sa.create_engine(url, pool_pre_ping=not url.startswith("sqlite"))
    except ModuleNotFoundError as e:  # the Postgres driver is an extra
        raise ConfigurationError(
            f"DATABASE_URL names Postgres, which needs the {e.name} driver for {what}: {POSTGRES_EXTRA} "
            "(or unset DATABASE_URL to keep it in SQLite under DATA_DIR)."
        ) from None
    if url.startswith("sqlite"):

        @sa.event.listens_for(eng, "connect")
        def _wal(dbapi_connection: object, _record: object) -> None:
            cursor = dbapi_connection.cursor()  # type: ignore[attr-defined]
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.close()

    return eng
