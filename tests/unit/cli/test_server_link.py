"""Where a command looks for `rag serve`, and when it runs in-process instead."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from cli import server_link
from components.settings import Settings


def test_the_socket_lives_in_data_dir_unless_the_path_is_too_long(tmp_path: Path) -> None:
    assert server_link.socket_path(tmp_path) == tmp_path.resolve() / "serve.sock"
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    path = server_link.socket_path(deep)
    assert len(os.fsencode(path)) <= server_link.MAX_SOCKET_PATH
    assert path == server_link.socket_path(deep) != server_link.socket_path(tmp_path / "other")


def test_the_fingerprint_sees_every_setting_and_paths_as_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    base = Settings(data_dir=Path(".rag"), qdrant_path=Path("q"))
    same = Settings(data_dir=tmp_path / ".rag", qdrant_path=tmp_path / "q")
    assert server_link.fingerprint(base) == server_link.fingerprint(same)
    assert server_link.fingerprint(base) != server_link.fingerprint(base.model_copy(update={"collection": "x"}))
    keyed = Settings(data_dir=Path(".rag"), qdrant_path=Path("q"), llm_api_key="one")
    other_key = Settings(data_dir=Path(".rag"), qdrant_path=Path("q"), llm_api_key="two")
    assert server_link.fingerprint(keyed) != server_link.fingerprint(other_key)


def test_no_server_means_run_here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(data_dir=tmp_path, qdrant_path=tmp_path / "q")
    assert server_link.call(settings, "search", {}) is None  # no socket file
    path = server_link.socket_path(tmp_path)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(path))  # a socket file nobody accepts on (a killed server's)
    dead.close()
    assert path.exists() and not server_link.listening(path)
    assert server_link.call(settings, "search", {}) is None
    monkeypatch.setenv(server_link.SWITCH, "off")
    assert not server_link.enabled()
    assert server_link.call(settings, "search", {}) is None


@pytest.mark.parametrize(
    ("value", "mode"), [("", "on"), ("on", "on"), ("off", "off"), ("0", "off"), ("auto", "auto"), (" Auto ", "auto")]
)
def test_rag_server_says_whether_to_use_start_or_skip_a_server(
    value: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(server_link.SWITCH, value)
    assert server_link.mode() == mode
