"""What every loader reads and reports: the source file, a failure, the file's text and time."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from components.resilience.errors import IndexingError


@dataclass(frozen=True)
class SourceFile:
    """A file to ingest and the vault it belongs to."""

    path: Path
    vault: str | None


@dataclass(frozen=True)
class Failure:
    """A file (or a line of one) that was not ingested, and why."""

    source: str
    reason: str


def read_text(path: Path) -> str:
    """A text file's content with plain newlines; an empty, binary or non-UTF-8 file is an IndexingError."""
    data = path.read_bytes()
    if not data.strip():
        raise IndexingError("file is empty")
    if b"\x00" in data[:8192]:
        raise IndexingError(f"file holds binary data, not text (is it really {path.suffix}?)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise IndexingError(f"file is not UTF-8 text (byte {e.start}); re-save it as UTF-8") from e
    return text.replace("\r\n", "\n").replace("\r", "\n")


def mtime(path: Path) -> str:
    """The file's modification time, ISO 8601 in UTC: a document's ``modified`` when it states none."""
    return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC).isoformat(timespec="seconds")
