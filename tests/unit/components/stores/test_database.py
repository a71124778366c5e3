"""DATABASE_URL: one setting, turned into what each library takes, never shown with its password."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.resilience.errors import ConfigurationError
from components.stores import database


def test_unset_means_the_sqlite_file_and_postgres_goes_through_psycopg_3() -> None:
    assert database.sqlalchemy_url("", Path("/d/feedback.sqlite")) == "sqlite:////d/feedback.sqlite"
    for url in ("postgresql://u:p@h:5432/db", "postgres://u:p@h:5432/db", "postgresql+psycopg://u:p@h:5432/db"):
        assert database.is_postgres(url)
        assert database.sqlalchemy_url(url, Path("x")) == "postgresql+psycopg://u:p@h:5432/db"
        assert database.libpq_url(url) == "postgresql://u:p@h:5432/db"


def test_a_url_for_another_database_is_refused_with_what_to_write() -> None:
    with pytest.raises(ConfigurationError, match="postgresql://user:password@host:5432/dbname"):
        database.sqlalchemy_url("mysql://u:secret@h/db", Path("x"))
    with pytest.raises(ConfigurationError) as e:
        database.check_url("mysql://u:secret@h/db")
    assert "secret" not in str(e.value)


def test_the_password_never_reaches_a_message() -> None:
    assert database.redacted("postgresql://rag:s3cret@db:5432/rag") == "postgresql://rag:***@db:5432/rag"
    assert database.redacted("postgresql://rag@db/rag") == "postgresql://rag@db/rag"
    assert database.redacted("postgresql://postgres:@/t1?host=/tmp/x") == "postgresql://postgres:***@/t1?host=/tmp/x"


def test_a_location_reads_as_the_user_wrote_it() -> None:
    assert database.location("sqlite:////d/cache.sqlite") == "/d/cache.sqlite"
    assert database.location("postgresql+psycopg://rag:pw@db/rag") == "postgresql://rag:***@db/rag"
