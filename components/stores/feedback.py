"""Users' verdicts on answers (good or bad, with a reason), kept in a database for review.

SQLite by default (``DATA_DIR/feedback.sqlite``); ``DATABASE_URL`` puts it in Postgres, the
database that then also holds the threads and the cache (``components/stores/database.py``).
SQLAlchemy Core speaks both, so the table and its queries are written once. Each row holds what
a reviewer needs without the thread: the question, the answer, its sources and passages, and the
index version the answer was made on, so feedback on an answer from an older corpus is kept and
can be told apart.
"""

from __future__ import annotations

import builtins
import json
import threading
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from components.resilience.errors import RAGError
from components.stores import database

Verdict = Literal["good", "bad"]
VERDICTS: tuple[Verdict, ...] = ("good", "bad")


class FeedbackError(RAGError):
    """Feedback that cannot be stored or read; the message says what to do."""


@dataclass
class FeedbackRecord:
    """One verdict on one answer, with the answer as the user saw it."""

    thread_id: str
    verdict: Verdict
    question: str
    answer: str
    reason: str = ""
    checkpoint_id: str | None = None
    request_id: str | None = None
    sources: list[dict[str, Any]] = field(default_factory=list)
    contexts: list[str] = field(default_factory=list)
    context_ids: list[str] = field(default_factory=list)
    collection: str = ""
    index_version: int | None = None
    user_id: str = ""
    tenant: str = ""
    language: str = ""
    created_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    id: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


_JSON_FIELDS = ("sources", "contexts", "context_ids")


class FeedbackStore:
    """The ``feedback`` table: add a verdict, list them, read one."""

    def __init__(self, url: str) -> None:
        import sqlalchemy as sa

        self.url = url
        self._engine = database.engine(url, what="feedback")
        meta = sa.MetaData()
        self._table = sa.Table(
            "feedback",
            meta,
            sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
            sa.Column("created_at", sa.String(40), nullable=False),
            sa.Column("thread_id", sa.String(200), nullable=False, index=True),
            sa.Column("checkpoint_id", sa.String(200)),
            sa.Column("request_id", sa.String(100)),
            sa.Column("verdict", sa.String(10), nullable=False, index=True),
            sa.Column("reason", sa.Text, nullable=False, default=""),
            sa.Column("question", sa.Text, nullable=False),
            sa.Column("answer", sa.Text, nullable=False),
            sa.Column("sources", sa.Text, nullable=False, default="[]"),
            sa.Column("contexts", sa.Text, nullable=False, default="[]"),
            sa.Column("context_ids", sa.Text, nullable=False, default="[]"),
            sa.Column("collection", sa.String(200), nullable=False, default=""),
            sa.Column("index_version", sa.Integer),
            sa.Column("user_id", sa.String(200), nullable=False, default=""),
            sa.Column("tenant", sa.String(200), nullable=False, default=""),
            sa.Column("language", sa.String(10), nullable=False, default=""),
        )
        self._lock = threading.Lock()
        try:
            meta.create_all(self._engine)
        except sa.exc.SQLAlchemyError as e:
            cause = getattr(e, "orig", None) or e
            raise FeedbackError(f"The feedback database at {self._where()} is not usable: {cause}") from None

    def _where(self) -> str:
        return database.location(self.url)

    def add(self, record: FeedbackRecord) -> FeedbackRecord:
        """Store ``record``; returns it with its id."""
        row = record.as_dict()
        row.pop("id")
        for key in _JSON_FIELDS:
            row[key] = json.dumps(row[key], ensure_ascii=False)
        with self._lock, self._engine.begin() as conn:
            inserted = conn.execute(self._table.insert().values(**row)).inserted_primary_key
        record.id = int(inserted[0]) if inserted else None
        return record

    def list(self, verdict: Verdict | None = None, *, limit: int | None = None) -> list[FeedbackRecord]:
        """Newest first; only ``verdict`` when given."""
        query = self._table.select().order_by(self._table.c.id.desc())
        if verdict:
            query = query.where(self._table.c.verdict == verdict)
        if limit:
            query = query.limit(limit)
        with self._engine.connect() as conn:
            return [self._record(dict(r._mapping)) for r in conn.execute(query)]

    def verdicts_of(self, *, user_id: str, tenant: str, collection: str) -> builtins.list[FeedbackRecord]:
        """One asker's verdicts on answers from ``collection`` (ranking reads them: never another user's)."""
        t = self._table.c
        query = self._table.select().where(t.user_id == user_id, t.tenant == tenant, t.collection == collection)
        with self._engine.connect() as conn:
            return [self._record(dict(r._mapping)) for r in conn.execute(query)]

    def get(self, feedback_id: int) -> FeedbackRecord | None:
        with self._engine.connect() as conn:
            row = conn.execute(self._table.select().where(self._table.c.id == feedback_id)).first()
        return None if row is None else self._record(dict(row._mapping))

    @staticmethod
    def _record(row: dict[str, Any]) -> FeedbackRecord:
        for key in _JSON_FIELDS:
            row[key] = json.loads(row[key] or "[]")
        return FeedbackRecord(**row)

    def close(self) -> None:
        self._engine.dispose()
