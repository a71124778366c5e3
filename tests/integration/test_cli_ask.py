"""`rag ask`, `rag chat` and `rag profile` as people and scripts run them, with real models.

Commands run through the console script's entry point in this process (``rag_here``); a
follow-up asked from a second process and Ctrl-C at the chat prompt run in processes of their
own. The sample vaults are ingested once; threads and profiles live in DATA_DIR/threads.sqlite,
which the test also opens (``open_rag_graph``) to see what a thread holds.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from components.factory import Components
from components.settings import Settings
from graph.threads import open_rag_graph
from tests.conftest import SAMPLE_VAULTS
from tests.fakes.ollama_server import Behaviour, ollama_server
from tests.integration.helpers import env_for, rag_here, rag_process

pytestmark = pytest.mark.integration

MISO = "味噌汁で味噌を入れるタイミングは？"  # examples/QUESTIONS.md no. 1
MONSTERA = "When should I water the monstera?"  # no. 9
MIXED = "What do my notes say about BM25 and information retrieval?"  # research notes, and a book in life/
JSON_KEYS = {
    "answer",
    "sources",
    "confidence",
    "route",
    "path",
    "escalation",
    "warnings",
    "cache_hit",
    "thread_id",
    "request_id",
    "examples",
}


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-ask")
    shutil.copytree(SAMPLE_VAULTS, root / "vaults")
    rag(root, "ingest", str(root / "vaults"), "--json")
    return root


def rag(
    home: Path,
    *args: str,
    code: int = 0,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    process: bool = False,
) -> subprocess.CompletedProcess[str]:
    """`rag ARGS` in this process (``rag_here``), or with ``process`` in a process of its own."""
    proc = (rag_process if process else rag_here)(home, *args, stdin=stdin, env=env)
    assert proc.returncode == code, proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr
    return proc


def thread_messages(home: Path, thread_id: str) -> list[Any]:
    """The thread as the SQLite checkpointer keeps it (what the next process will continue from)."""
    settings = Settings(qdrant_path=home / "qdrant", data_dir=home / "data", _env_file=None)  # type: ignore[call-arg]

    async def read() -> list[Any]:
        async with open_rag_graph(Components(settings)) as graph:
            state = await graph.aget_state({"configurable": {"thread_id": thread_id}})
            return list(state.values.get("messages") or [])

    return asyncio.run(read())


def test_ask_json_then_a_follow_up_in_another_process_continues_the_thread(home: Path) -> None:
    first = json.loads(rag(home, "ask", MISO, "--json").stdout)
    assert set(first) == JSON_KEYS
    assert re.fullmatch(r"[0-9a-f]{32}", first["thread_id"])
    assert "火を止め" in first["answer"] and re.search(r"\[\d+\]", first["answer"])
    assert first["sources"] and first["sources"][0]["title"] == "味噌汁"
    assert {"n", "doc_id", "source", "title", "section", "score", "chunk_ids"} <= set(first["sources"][0])
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", first["answer"])}
    assert cited == {s["n"] for s in first["sources"]}
    assert first["path"] == "extractive" and first["route"] == "vector_search" and 0 < first["confidence"] <= 1
    assert first["escalation"] is None and first["cache_hit"] is False

    tid = first["thread_id"]
    proc = rag(home, "ask", MONSTERA, "--thread", tid, "--stream", "--debug", process=True)
    out = proc.stdout
    assert out.count("5 cm") == 1, "the extractive answer streams nothing, so it is printed once, at the end"
    assert re.search(r"^\[1\] Monstera Care — Watering rule \(.*Monstera Care\.md\)$", out, re.M)
    assert re.search(r"^confidence (?:0\.\d\d|1\.00) · route vector_search · path extractive$", out, re.M)
    assert f"--thread {tid}" in out
    visited = re.findall(r"^  (\w+) +[\d.]+ ms$", out, re.M)
    assert visited[0] == "guard_input" and visited[-1] == "finish_run" and "generate_answer" in visited
    assert visited.count("guard_input") == 1, "--debug lists this turn's nodes, not the thread's earlier turns"
    assert re.search(r"^  context: relevant=True", out, re.M) and re.search(r"^  hallucination: grounded=", out, re.M)

    messages = thread_messages(home, tid)
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, HumanMessage, AIMessage]
    assert [messages[0].content, messages[2].content] == [MISO, MONSTERA]
    assert messages[1].content == first["answer"]


def test_questions_that_only_state_conditions_list_the_notes_that_meet_them(home: Path) -> None:
    ja = json.loads(rag(home, "ask", "2025年に書いた #料理 のメモは？", "--json").stdout)
    assert (ja["route"], ja["path"], ja["escalation"]) == ("metadata_search", "metadata", None)
    assert ja["answer"].splitlines() == [
        "条件（タグ #料理、作成日 2025-01-01〜2025-12-31）に合う文書は 1 件です。",
        "1. Karaage · 2025-04-20 · life/recipes/Karaage.md · #cooking #japanese-food #料理 [1]",
    ]
    en = rag(home, "ask", "Which notes are tagged rag?").stdout
    assert "3 documents match tags #rag (newest first)." in en
    listed = re.findall(r"^\d+\. (.+?) · ", en, re.M)
    assert listed == ["チャンク分割", "LangGraph State Machines", "Retrieval-Augmented Generation"]
    assert re.search(r"^confidence 1\.00 · route metadata_search · path metadata$", en, re.M)
    # a paper's authors (its frontmatter) are a condition too, by surname
    papers = json.loads(rag(home, "ask", "Which papers by Karpukhin do I have?", "--json").stdout)
    assert (papers["route"], papers["path"]) == ("metadata_search", "metadata")
    assert papers["answer"].splitlines()[0] == "One document matches by Vladimir Karpukhin."
    assert (
        papers["answer"]
        .splitlines()[1]
        .startswith("1. Dense Passage Retrieval · Vladimir Karpukhin, Barlas Oğuz, Sewon Min et al.")
    )
    # the input rail redacts the name ("… by <PERSON>"); as an author the vault holds, it still lists
    chen = json.loads(rag(home, "ask", "Show me papers written by Danqi Chen", "--json").stdout)
    assert (chen["route"], chen["path"]) == ("metadata_search", "metadata")
    assert chen["answer"].splitlines()[:1] == ["One document matches by <PERSON>."]  # the answer keeps it too
    assert chen["answer"].splitlines()[1].startswith("1. Dense Passage Retrieval · ")
    asked = thread_messages(home, chen["thread_id"])[0].content
    assert "Danqi" not in asked and "<PERSON>" in asked  # the thread keeps the redacted question


def test_a_file_attached_to_a_question_answers_it_and_is_not_ingested(home: Path) -> None:
    memo = home / "memo.md"
    memo.write_text("# Parking\n\nVisitors park on level B2; the gate code is given at reception.\n", encoding="utf-8")
    out = json.loads(rag(home, "ask", "Where do visitors park?", "--attach", str(memo), "--json").stdout)
    assert (out["route"], out["path"]) == ("given_documents", "extractive") and "level B2" in out["answer"]
    assert [s["source"] for s in out["sources"]] == [str(memo)]
    listed = rag(home, "search", "visitors park level B2", "--json", "--min-score", "0").stdout
    assert "memo.md" not in listed  # answered from, never written to the index
    missing = rag(home, "ask", "Where?", "--attach", str(home / "nowhere.md"), code=2)
    assert "--attach" in missing.stderr and "nowhere.md" in missing.stderr


def test_profile_filters_apply_to_questions_asked_as_that_user(home: Path) -> None:
    stored = json.loads(rag(home, "profile", "u1", "--vault", "life").stdout)
    assert stored["profile"] == {"filters": {"vaults": ["life"]}}
    out = json.loads(rag(home, "ask", MIXED, "--user", "u1", "--json", "--debug").stdout)
    # without the profile this question is answered from the research vault's BM25 and DPR notes
    assert out["sources"] and all("/vaults/life/" in s["source"] for s in out["sources"])
    assert "Introduction to Information Retrieval" in out["answer"]
    assert out["debug_info"]["analysis"]["profile_filters"] == {"vaults": ["life"]}
    assert out["steps"][0]["node"] == "guard_input" and out["steps"][-1]["node"] == "finish_run"
    shown = json.loads(rag(home, "profile", "u1", "--clear").stdout)
    assert shown["profile"] is None


def test_chat_streams_tokens_keeps_the_thread_and_says_when_it_regenerates(home: Path) -> None:
    replies = iter(["The moon is made of green cheese [1].", "Water it only when the top 5 cm of soil is dry [1]."])

    def generator(payload: dict[str, Any]) -> str:
        return next(replies, "Water it thoroughly, then empty the saucer after 15 minutes [1].")

    with ollama_server(Behaviour(chat_handler=generator)) as (url, behaviour):
        env = {"OLLAMA_BASE_URL": url, "LLM_MODEL_GENERATOR": "fake-chat"}  # only answers use the LLM
        proc = rag(home, "chat", stdin=f"{MONSTERA}\nAnd after watering?\n/quit\n", env=env)
        requests = behaviour.chat_requests
    out = proc.stdout
    tid = re.match(r"thread ([0-9a-f]{32})", out)
    assert tid, out
    assert out.count("you> ") == 3
    # the ungrounded first answer streamed, then the graph said it regenerates, then the grounded one
    cheese, regen, soil = (out.index(s) for s in ("green cheese", "[regenerating the answer]", "top 5 cm"))
    assert cheese < regen < soil
    assert "[1] Monstera Care — Watering rule" in out and "path llm" in out
    assert out.rstrip().endswith(f"rag chat --thread {tid[1]}")
    # the second turn's model call carries the first turn (the thread), and the thread is persisted
    assert any(m["role"] == "assistant" and "top 5 cm" in m["content"] for m in requests[-1]["messages"])
    messages = thread_messages(home, tid[1])
    assert [m.content for m in messages if isinstance(m, HumanMessage)] == [MONSTERA, "And after watering?"]
    assert len(messages) == 4


def test_errors_are_one_line_without_a_traceback(home: Path) -> None:
    proc = rag(home, "ask", "   ", code=2)
    assert " ".join(proc.stderr.split()) == "error: the question is empty: ask something, in Japanese or English"
    assert json.loads(rag(home, "ask", "", "--json", code=2).stdout) == {
        "error": "the question is empty: ask something, in Japanese or English"
    }
    bad = " ".join(rag(home, "ask", MONSTERA, "--from", "2025-13-01", code=1).stderr.split())
    assert bad.startswith("error: Invalid filters: created_from")
    assert "do not combine" in rag(home, "ask", MONSTERA, "--json", "--stream", code=2).stderr


@pytest.mark.parametrize("word", ["quit", "exit", "Quit", "終了"])
def test_a_plain_exit_word_leaves_the_chat_instead_of_being_asked(home: Path, word: str) -> None:
    out = rag(home, "chat", "--no-llm", stdin=f"{word}\n{MONSTERA}\n").stdout
    assert out.count("you> ") == 1 and "5 cm" not in out, "the chat ended at the exit word"
    assert "rag chat --thread" in out


def test_web_without_a_provider_says_how_to_set_one_up(home: Path) -> None:
    for args in (("ask", MONSTERA, "--web"), ("chat", "--web")):
        err = " ".join(rag(home, *args, code=2, env={"WEB_SEARCH_PROVIDER": ""}).stderr.split())
        assert "--web needs a web search provider: set WEB_SEARCH_PROVIDER=tavily and WEB_SEARCH_API_KEY" in err
    as_json = json.loads(rag(home, "ask", MONSTERA, "--web", "--json", code=2, env={"WEB_SEARCH_PROVIDER": ""}).stdout)
    assert "WEB_SEARCH_PROVIDER" in as_json["error"]


def test_ctrl_c_at_the_chat_prompt_leaves_cleanly(home: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli", "chat", "--thread", "t-ctrl-c"],
        env=env_for(home),
        cwd=home,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    seen, deadline = b"", time.monotonic() + 120
    while b"you> " not in seen and time.monotonic() < deadline and proc.poll() is None:
        seen += os.read(proc.stdout.fileno(), 4096)
    assert b"you> " in seen, seen
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err.decode()
    assert b"Traceback" not in err
    assert (seen + out).decode().rstrip().endswith("continue later with: rag chat --thread t-ctrl-c")
