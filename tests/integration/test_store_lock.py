"""The embedded store admits one process: a second one is told which process holds it and how to
share the index instead."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from components.resilience.errors import StoreLocked
from components.stores.qdrant import QdrantIndex
from tests.integration.test_cli_ask import rag

pytestmark = pytest.mark.integration

HOLD = """
import sys, time
from pathlib import Path
from components.stores.qdrant import QdrantIndex
index = QdrantIndex(collection="rag", path=Path(sys.argv[1]))
index.client
print("holding", flush=True)
time.sleep(120)
"""


@contextmanager
def holder(folder: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process that opens the embedded store and keeps it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder), "--serving"], stdout=subprocess.PIPE, text=True, cwd=os.getcwd()
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "holding"
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_a_second_process_is_told_who_holds_the_store_and_what_to_do(tmp_path: Path) -> None:
    folder = tmp_path / "qdrant"
    with holder(folder) as proc:
        with pytest.raises(StoreLocked) as e:
            _ = QdrantIndex(collection="rag", path=folder).client
        message = str(e.value)
        assert f"process {proc.pid} holds it" in message and "--serving" in message
        assert "QDRANT_URL" in message
        out = rag(tmp_path, "search", "monstera", code=1, env={"QDRANT_PATH": str(folder)})
        assert f"process {proc.pid}" in out.stderr


def test_a_holder_that_died_without_closing_is_named_as_gone_and_the_store_opens(tmp_path: Path) -> None:
    folder = tmp_path / "qdrant"
    with holder(folder) as proc:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        index = QdrantIndex(collection="rag", path=folder)
        _ = index.client  # the lock went with the process
        index.close()
    assert not (folder / ".rag-holder.json").exists()  # closing removes this process's note
