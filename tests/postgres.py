"""A real Postgres for the tests: the server binaries of the ``pgserver`` wheel (PyPI), started
once per test session in a temporary folder and stopped at the end. Each test gets a database of
its own, so tests do not see each other's rows."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


class Postgres:
    """One running server; :meth:`new_database` hands out empty databases."""

    def __init__(self, server: Any) -> None:
        self._server = server
        self._names = itertools.count(1)

    def new_database(self) -> str:
        """A fresh database's libpq URL (``postgresql://postgres:@/tN?host=SOCKET_DIR``)."""
        name = f"t{next(self._names)}"
        self._server.psql(f"CREATE DATABASE {name};")
        url: str = self._server.get_uri(name)
        return url

    def query(self, url: str, sql: str) -> list[tuple[Any, ...]]:
        """Rows of ``sql`` run in the database at ``url`` (psycopg, as an outside reader would)."""
        import psycopg

        with psycopg.connect(url) as conn:
            return list(conn.execute(sql).fetchall())


@contextmanager
def postgres(root: Path) -> Iterator[Postgres]:
    """A Postgres server whose data lives under ``root``; stopped when the block ends."""
    import pgserver

    server = pgserver.get_server(root / "pgdata", cleanup_mode="stop")
    log.info("test Postgres at %s", server.get_uri())
    try:
        yield Postgres(server)
    finally:
        server.cleanup()
