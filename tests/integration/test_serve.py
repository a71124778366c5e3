"""`rag serve` keeps everything loaded and the one-shot commands run in it: the same answers as
in-process, several commands sharing the one embedded store, errors that leave it serving."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.server_link import socket_path
from evals.process import ServeProcess
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import env_for
from tests.integration.test_cli_ask import rag

pytestmark = pytest.mark.integration

READY_TIMEOUT_S = 180


def serve_in(home: Path, *args: str) -> ServeProcess:
    """`rag serve` over the store of ``home``, as a user starts it there."""
    return ServeProcess(env_for(home), *args, cwd=home)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("serve")
    shutil.copytree(SAMPLE_VAULTS / "life", root / "life")
    rag(root, "ingest", str(root / "life"), "--json")
    return root


@pytest.fixture(scope="module")
def in_process(home: Path) -> dict[str, object]:
    """What the commands print without a server, to compare with what the server answers."""
    return {
        "search": json.loads(rag(home, "search", "monstera watering", "-k", "3", "--json").stdout),
        "ask": json.loads(rag(home, "ask", "味噌汁で味噌を入れるタイミングは？", "--json").stdout),
    }


@pytest.fixture(scope="module")
def server(home: Path, in_process: dict[str, object]) -> Iterator[ServeProcess]:
    served = serve_in(home)
    try:
        served.wait_ready(READY_TIMEOUT_S)
        yield served
    finally:
        served.stop()


def _ids(report: dict[str, object]) -> list[tuple[str, float]]:
    return [(str(r["chunk_id"]), round(float(r["score"]), 4)) for r in report["results"]]  # type: ignore[attr-defined]


def test_search_through_the_server_returns_what_the_command_returns_alone(
    home: Path, server: ServeProcess, in_process: dict[str, object]
) -> None:
    out = json.loads(rag(home, "search", "monstera watering", "-k", "3", "--json").stdout)
    assert _ids(out) == _ids(in_process["search"])  # type: ignore[arg-type]
    status = json.loads(rag(home, "status", "--json").stdout)
    assert status["server"]["pid"] == server.proc.pid and status["server"]["requests"] >= 2


def test_ask_through_the_server_answers_cites_and_keeps_the_thread(
    home: Path, server: ServeProcess, in_process: dict[str, object]
) -> None:
    expected = in_process["ask"]
    out = json.loads(rag(home, "ask", "味噌汁で味噌を入れるタイミングは？", "--json").stdout)
    assert out["answer"] == expected["answer"]  # type: ignore[index]
    assert [s["source"] for s in out["sources"]] == [s["source"] for s in expected["sources"]]  # type: ignore[index]
    follow = rag(home, "ask", "How much water, then?", "--thread", out["thread_id"], "--stream")
    assert f"--thread {out['thread_id']}" in follow.stdout and "confidence" in follow.stdout


def test_chat_and_the_search_loop_run_their_turns_in_the_server(home: Path, server: ServeProcess) -> None:
    before = json.loads(rag(home, "status", "--json").stdout)["server"]["requests"]
    chat = rag(
        home, "chat", "--no-llm", stdin="When should I water the monstera?\n/new\n味噌汁の作り方は？\nquit\n"
    ).stdout
    turns = chat.split("rag> ")
    assert len(turns) == 3 and "5 cm" in turns[1] and "Monstera Care" in turns[1], chat
    assert "味噌汁" in turns[2] and "new thread" in turns[1] and "bye" in chat
    session = ":tag 料理\n出汁の取り方\n:clear\nmonstera watering\n:ask\nquit\n"
    loop = rag(home, "search", "-i", "-k", "3", stdin=session).stdout
    blocks = loop.split("search> ")
    assert "味噌汁" in blocks[2] and "Monstera" not in blocks[2], loop
    assert "Monstera Care › Watering rule" in blocks[4] and "[1] Monstera Care" in blocks[5], loop
    after = json.loads(rag(home, "status", "--json").stdout)["server"]["requests"]
    # chat: the ping and two turns; the loop: the ping, two searches and the :ask; the status itself
    assert after - before >= 3 + 4 + 1


def test_several_commands_at_once_share_the_embedded_store(home: Path, server: ServeProcess) -> None:
    queries = ["monstera watering", "出汁の取り方", "marathon training", "miso soup"]
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "cli", "search", q, "-k", "2", "--json"],
            env=env_for(home),
            cwd=home,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for q in queries
    ]
    for p in procs:
        stdout, stderr = p.communicate(timeout=300)
        assert p.returncode == 0, stderr
        assert json.loads(stdout)["query"] in queries


def test_a_failing_request_gets_its_error_and_the_server_keeps_serving(home: Path, server: ServeProcess) -> None:
    err = rag(home, "similar", "no-such-doc", code=1).stderr
    assert "No document with id 'no-such-doc'" in " ".join(err.split())
    assert "Invalid filters: created_from" in " ".join(
        rag(home, "search", "x", "--from", "2025-13-01", code=1).stderr.split()
    )
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:  # not the protocol at all
        s.connect(str(socket_path(home / "data")))
        s.sendall(b"hello\n")
        reply = json.loads(s.makefile("rb").readline())
    assert reply["event"] == "error" and "not JSON" in reply["message"]
    assert json.loads(rag(home, "search", "monstera", "--json").stdout)["results"]


def test_ingest_through_the_server_shows_in_its_next_search(home: Path, server: ServeProcess) -> None:
    note = home / "life" / "Sourdough.md"
    note.write_text("# Sourdough\n\nFeed the sourdough starter with rye flour every evening.\n", encoding="utf-8")
    summary = json.loads(rag(home, "ingest", str(home / "life"), "--json").stdout)
    assert summary["new"] == 1 and summary["written_chunks"] >= 1
    top = json.loads(rag(home, "search", "sourdough starter rye", "-k", "1", "--json").stdout)["results"][0]
    assert top["source"].endswith("Sourdough.md")


def test_other_settings_do_not_run_in_the_server_and_are_told_who_holds_the_store(
    home: Path, server: ServeProcess
) -> None:
    # another collection is another configuration: the server must not answer it with its own
    err = rag(home, "search", "monstera", env={"COLLECTION": "other"}, code=1).stderr
    assert f"process {server.proc.pid}" in err and "serve" in err


def test_a_second_server_is_refused(home: Path, server: ServeProcess) -> None:
    second = serve_in(home)
    assert second.proc.wait(timeout=300) == 1
    assert "another `rag serve` already answers" in " ".join(second.output().split())
