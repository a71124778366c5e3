"""Helpers for integration tests: run the real ingestion graph, read the real store."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from components.factory import Components
from components.settings import Settings
from graph.ingest import build_ingest_graph
from graph.ingest_state import IngestContext
from tests.conftest import SAMPLE_VAULTS


def ingest(
    c: Components, *paths: Path | str, prune: bool = False, batch: int = 64, sentence_vectors: bool = True
) -> dict[str, Any]:
    graph = build_ingest_graph(c)
    ctx = IngestContext(batch_documents=batch, sentence_vectors=sentence_vectors)
    out: dict[str, Any] = asyncio.run(graph.ainvoke({"paths": [str(p) for p in paths], "prune": prune}, context=ctx))
    return out


def ingest_into(c: Components, path: Path | str, collection: str) -> dict[str, Any]:
    """``path`` ingested into ``collection`` (not the settings' default), as `rag ingest --collection` does."""
    ctx = IngestContext(collection=collection)
    out: dict[str, Any] = asyncio.run(build_ingest_graph(c).ainvoke({"paths": [str(path)]}, context=ctx))
    return out


def sample_store(root: Path, *, sentence_vectors: bool = True, **settings: Any) -> tuple[Components, Path]:
    """The sample vaults copied under ``root`` and ingested into an embedded store there.

    Returns the Components over that store (the caller closes them) and the vaults' copy, which
    a test may edit and ingest again. ``settings`` are extra Settings fields; a test of search
    alone may leave out the sentence vectors (extractive answers' only).
    """
    vaults = root / "vaults"
    shutil.copytree(SAMPLE_VAULTS, vaults)
    s = Settings(qdrant_path=root / "qdrant", data_dir=root / "data", _env_file=None, **settings)  # type: ignore[call-arg]
    c = Components(s)
    assert ingest(c, vaults, sentence_vectors=sentence_vectors)["failures"] == []
    return c, vaults


def with_models(base: Components, **models: Any) -> Components:
    """Components sharing the store, embedder and client of ``base``, with chat models injected per role."""
    return Components(base.settings, embedder=base.embedder, chat_models=models, store_of=base)


def with_llm_server(base: Components, url: str, **settings: Any) -> Components:
    """Components on the store of ``base`` whose LLM is an Ollama-protocol test server (LLM_MODEL=fake-chat)."""
    s = base.settings.model_copy(
        update={"llm_model": "fake-chat", "ollama_base_url": url, "llm_timeout": 5.0, **settings}
    )
    return Components(s, embedder=base.embedder, store_of=base)


def payloads(c: Components) -> list[dict[str, Any]]:
    return [dict(p.payload or {}) for p in c.index().scroll()]


def assert_consistent(c: Components) -> None:
    """Every document has exactly its chunks 0..n-1 of one content version: no gaps, no doubles."""
    by_doc: dict[str, list[dict[str, Any]]] = {}
    for pl in payloads(c):
        by_doc.setdefault(pl["doc_id"], []).append(pl)
    for doc_id, pls in by_doc.items():
        idx = sorted(p["chunk_index"] for p in pls)
        assert idx == list(range(len(pls))), f"{doc_id}: chunk indexes {idx}"
        assert {p["total_chunks"] for p in pls} == {len(pls)}, doc_id
        assert len({p["content_hash"] for p in pls}) == 1, doc_id
    dup = [k for k, v in Counter(p["chunk_id"] for p in payloads(c)).items() if v > 1]
    assert not dup


class EmbeddedTexts:
    """``with EmbeddedTexts(c) as texts:`` records every text the embedding model is run on."""

    def __init__(self, c: Components) -> None:
        self.c, self.texts = c, list[str]()

    def __enter__(self) -> list[str]:
        encode = self.original = self.c.embedder._encode

        def recording(texts: list[str], *, is_query: bool) -> Any:
            self.texts.extend(texts)
            return encode(texts, is_query=is_query)

        self.c.embedder._encode = recording  # type: ignore[method-assign]
        return self.texts

    def __exit__(self, *_: Any) -> None:
        self.c.embedder._encode = self.original  # type: ignore[method-assign]


def env_for(home: Path) -> dict[str, str]:
    """The environment a `rag` command runs with in a test: its store and data under ``home``, no
    server settings of the user's, and an Ollama URL where nothing listens."""
    env = {k: v for k, v in os.environ.items() if k not in {"QDRANT_URL", "COLLECTION"}}
    env.update(
        {
            "QDRANT_PATH": str(home / "qdrant"),
            "DATA_DIR": str(home / "data"),
            "HF_HUB_OFFLINE": "1",
            "OLLAMA_BASE_URL": "http://127.0.0.1:9",
        }
    )
    return env


def rag_process(
    home: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`rag ARGS` in a process of its own, as a user runs it: for what crosses processes (a store's
    lock, a thread or cache another process continues, signals, cold starts)."""
    return subprocess.run(
        [sys.executable, "-m", "cli", *args],
        env={**env_for(home), **(env or {})},
        cwd=home,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=600,
    )


def rag_here(
    home: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`rag ARGS` through the console script's own entry point (``cli.main.run``) in this process:
    the same parsing, output, errors and exit code as ``rag_process``, with the environment,
    working folder, stdin, stdout and stderr of that process, and none of its start-up (imports,
    model load), which is what most of the CLI's tests spent their time on. The command closes
    what it opened when it ends, as a process would by exiting."""
    from typer.testing import CliRunner

    from cli import main
    from components.settings import get_settings

    full: dict[str, str | None] = {**env_for(home), **(env or {})}
    full.update({k: None for k in os.environ if k not in full})  # what a child would not inherit
    here = Path.cwd()
    argv = sys.argv
    code = 0
    get_settings.cache_clear()
    with CliRunner().isolation(input=stdin, env=full) as (out, err, _):
        sys.argv = ["rag", *args]
        os.chdir(home)
        try:
            main.run()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
        finally:
            sys.argv = argv
            os.chdir(here)
            get_settings.cache_clear()
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue().decode("utf-8", "replace"), err.getvalue().decode("utf-8", "replace")
    return subprocess.CompletedProcess(["rag", *args], code, stdout, stderr)
