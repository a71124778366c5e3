"""`rag serve`'s life: a killed server's socket is claimed by the next, an idle server stops by
itself, and `RAG_SERVER=auto` starts one that the next commands use. Each test starts its own
server, so this module runs after test_serve's shared server has stopped (two resident servers
at once would double the run's memory for nothing)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from cli.server_link import socket_path
from tests.conftest import SAMPLE_VAULTS
from tests.integration.test_cli_ask import rag
from tests.integration.test_serve import READY_TIMEOUT_S, serve_in

pytestmark = pytest.mark.integration


def test_stopping_removes_the_socket_and_commands_run_alone_again(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE_VAULTS / "life", tmp_path / "life")
    served = serve_in(tmp_path, "--idle-minutes", "0")
    served.wait_ready(READY_TIMEOUT_S)  # an empty store: the server still starts (status, ingest)
    assert rag(tmp_path, "ingest", str(tmp_path / "life"), "--json")
    path = socket_path(tmp_path / "data")
    assert path.exists()
    os.kill(served.proc.pid, signal.SIGKILL)  # killed: the socket file stays behind, nobody listens
    served.proc.wait()
    assert path.exists()
    out = json.loads(rag(tmp_path, "search", "monstera", "--json").stdout)  # runs in-process
    assert out["results"]
    again = serve_in(tmp_path)
    again.wait_ready(READY_TIMEOUT_S)  # the stale socket is claimed
    assert again.stop() == 0
    assert not path.exists()


def test_an_idle_server_stops_by_itself(tmp_path: Path) -> None:
    served = serve_in(tmp_path, "--idle-minutes", "0.02")
    served.wait_ready(READY_TIMEOUT_S)
    assert served.proc.wait(timeout=120) == 0
    assert not socket_path(tmp_path / "data").exists()


def test_rag_server_auto_starts_a_server_that_the_next_commands_use(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE_VAULTS / "life", tmp_path / "life")
    auto = {"RAG_SERVER": "auto"}
    try:
        summary = json.loads(rag(tmp_path, "ingest", str(tmp_path / "life"), "--json", env=auto).stdout)
        assert summary["new"] >= 1  # ingested by the server this command started
        served = json.loads(rag(tmp_path, "status", "--json", env=auto).stdout)["server"]
        assert served["requests"] == 2  # the ingest, then this status: one server for both
        top = json.loads(rag(tmp_path, "search", "monstera watering", "--json", env=auto).stdout)["results"][0]
        assert top["source"].endswith("Monstera Care.md")
        assert "rag serve: ready" in (tmp_path / "data" / "serve.log").read_text(encoding="utf-8")
        # it runs on after the commands ended, until idle for a while: the holder of the store
        assert json.loads((tmp_path / "qdrant" / ".rag-holder.json").read_text())["pid"] == served["pid"]
    finally:
        holder = tmp_path / "qdrant" / ".rag-holder.json"
        if holder.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(json.loads(holder.read_text())["pid"]), signal.SIGTERM)
    deadline = time.monotonic() + 60
    while socket_path(tmp_path / "data").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not socket_path(tmp_path / "data").exists()
