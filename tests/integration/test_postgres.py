"""DATABASE_URL puts threads, profiles, feedback and the semantic cache in one Postgres database,
tested against a real server (tests/postgres.py) through the `rag` command, as users run it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from components.stores.database import redacted
from tests.conftest import SAMPLE_VAULTS
from tests.integration.test_cli_ask import MONSTERA, rag
from tests.postgres import Postgres

pytestmark = pytest.mark.integration

PARAPHRASE = "When do I need to water my monstera?"


def test_threads_profiles_feedback_and_cache_live_in_postgres(tmp_path: Path, postgres_server: Postgres) -> None:
    url = postgres_server.new_database()
    env = {"DATABASE_URL": url}
    shutil.copytree(SAMPLE_VAULTS / "life", tmp_path / "life")
    rag(tmp_path, "ingest", str(tmp_path / "life"), "--json")

    first = json.loads(rag(tmp_path, "ask", MONSTERA, "--json", env=env).stdout)
    thread = first["thread_id"]
    follow = json.loads(rag(tmp_path, "ask", "How much water, then?", "--thread", thread, "--json", env=env).stdout)
    assert follow["thread_id"] == thread
    # the thread is in Postgres: a reader with psycopg sees its checkpoints
    assert postgres_server.query(url, f"SELECT count(*) FROM checkpoints WHERE thread_id = '{thread}'")[0][0] >= 2

    # a second process answers the paraphrase from the cache kept in the same database
    again = json.loads(rag(tmp_path, "ask", PARAPHRASE, "--json", env=env).stdout)
    assert again["cache_hit"] is True and again["answer"] == first["answer"]
    stats = json.loads(rag(tmp_path, "cache", "stats", env=env).stdout)
    assert stats["entries"] == 1 and stats["path"] == redacted(url)

    given = json.loads(rag(tmp_path, "feedback", thread, "good", "--reason", "clear", "--json", env=env).stdout)
    assert given["question"] == "How much water, then?" and given["verdict"] == "good"
    assert postgres_server.query(url, "SELECT verdict, reason FROM feedback") == [("good", "clear")]

    rag(tmp_path, "profile", "alice", "--vault", "life", env=env)
    shown = json.loads(rag(tmp_path, "profile", "alice", "--show", env=env).stdout)
    assert shown["profile"]["filters"] == {"vaults": ["life"]} and shown["db"] == redacted(url)

    # nothing of it went to the SQLite files the unset setting would use
    data = tmp_path / "data"
    assert not (data / "threads.sqlite").exists()
    assert not (data / "feedback.sqlite").exists()
    assert not (data / "cache" / "semantic-cache.sqlite").exists()


def test_a_database_that_cannot_be_reached_is_named_without_its_password(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE_VAULTS / "life", tmp_path / "life")
    rag(tmp_path, "ingest", str(tmp_path / "life"), "--json")
    env = {"DATABASE_URL": "postgresql://rag:s3cret@127.0.0.1:9/rag"}
    out = rag(tmp_path, "ask", MONSTERA, code=1, env=env)
    assert "DATABASE_URL" in out.stderr and "127.0.0.1:9" in out.stderr and "unset DATABASE_URL" in out.stderr
    assert "s3cret" not in out.stderr + out.stdout
    wrong = rag(tmp_path, "ask", MONSTERA, code=1, env={"DATABASE_URL": "mysql://rag@db/rag"})
    assert "not a Postgres URL" in wrong.stderr
