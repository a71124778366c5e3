"""Which process holds the embedded store: local mode admits one process per folder, and a user
who meets the lock needs to know whether it is `langgraph dev`, an ingestion or a stray shell.

The process that opens the folder writes ``.rag-holder.json`` beside qdrant-client's own lock
(pid, command line, start time) and removes it when it closes the store; a second process that
finds the folder locked reads it to name the holder. A record whose process is gone (killed
without closing) is reported as such.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import datetime
from pathlib import Path

log = logging.getLogger(__name__)

FILE_NAME = ".rag-holder.json"


def record(folder: Path) -> None:
    """Note this process as the folder's holder (best effort: a read-only folder only loses the note)."""
    note = {
        "pid": os.getpid(),
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]])[:200] if sys.argv else "python",
        "since": datetime.now().astimezone().isoformat(timespec="seconds"),
    }
    try:
        (folder / FILE_NAME).write_text(json.dumps(note), encoding="utf-8")
    except OSError as e:
        log.debug("cannot note the store's holder in %s: %s", folder, e)


def release(folder: Path) -> None:
    """Remove the note if it is this process's."""
    path = folder / FILE_NAME
    try:
        if json.loads(path.read_text(encoding="utf-8")).get("pid") == os.getpid():
            path.unlink()
    except (OSError, ValueError):
        pass


def describe(folder: Path) -> str:
    """Who holds the folder, in words ('' when nothing says)."""
    try:
        note = json.loads((folder / FILE_NAME).read_text(encoding="utf-8"))
        pid = int(note["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    if not _alive(pid):
        return f"the last holder, process {pid} ({note.get('command', '?')}), has ended without closing it"
    return f"process {pid} holds it ({note.get('command', '?')}, since {note.get('since', '?')})"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it exists
        return True
    return True
