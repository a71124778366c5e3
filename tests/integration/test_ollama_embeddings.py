"""Ollama embeddings through the real langchain-ollama client against an Ollama-protocol server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from components.factory import Components
from components.resilience.errors import ServiceUnavailable
from components.settings import Settings
from tests.fakes.ollama_server import DIM, ollama_server
from tests.integration.helpers import assert_consistent, ingest, payloads

pytestmark = pytest.mark.integration


def ollama_settings(settings: Settings, url: str) -> Settings:
    return settings.model_copy(
        update={"embedding_backend": "ollama", "embedding_model": "fake-embed", "ollama_embeddings_base_url": url}
    )


def notes(root: Path, n: int) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (root / f"n{i}.md").write_text(f"# Note {i}\nword{i} shared text about topic {i % 3}.", encoding="utf-8")
    return root


def test_ingest_with_ollama_embeddings(settings: Settings, tmp_path: Path) -> None:
    with ollama_server() as (url, behaviour):
        c = Components(ollama_settings(settings, url))
        try:
            out = ingest(c, notes(tmp_path / "notes", 4))
            assert out["failures"] == [] and out["written_chunks"] == 4
            meta = c.index().metadata()
            assert (meta["embedding_model"], meta["dim"]) == ("ollama:fake-embed", DIM)
            embeds = [p for path, p in behaviour.requests if path == "/api/embed"]
            assert embeds and embeds[0]["model"] == "fake-embed"
            assert_consistent(c)
        finally:
            c.close()


def test_embedding_server_down_fails_clearly_and_keeps_finished_batches(settings: Settings, tmp_path: Path) -> None:
    folder = notes(tmp_path / "notes", 6)
    with ollama_server() as (url, behaviour):
        c = Components(ollama_settings(settings, url))
        try:
            ingest(c, folder, batch=2)
            written_before = {p["doc_id"] for p in payloads(c)}
            for i in range(6):
                (folder / f"n{i}.md").write_text(f"# Note {i}\nchanged {i}", encoding="utf-8")
            behaviour.fail_next = 1000
            with pytest.raises(ServiceUnavailable, match="ollama pull fake-embed"):
                ingest(c, folder, batch=2)
            # the failed batches wrote nothing: the old versions are intact
            assert {p["doc_id"] for p in payloads(c)} == written_before
            assert all("changed" not in p["text"] for p in payloads(c))
            assert_consistent(c)
        finally:
            c.close()


def test_cli_reports_unreachable_ollama_without_a_traceback(tmp_path: Path) -> None:
    env = {
        "PATH": "/usr/bin:/bin",
        "HF_HUB_OFFLINE": "1",
        "QDRANT_PATH": str(tmp_path / "q"),
        "DATA_DIR": str(tmp_path / "d"),
        "EMBEDDING_BACKEND": "ollama",
        "OLLAMA_BASE_URL": "http://127.0.0.1:9",
    }
    notes(tmp_path / "notes", 1)
    proc = subprocess.run(
        [sys.executable, "-m", "cli", "ingest", str(tmp_path / "notes"), "--json"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1
    err = json.loads(proc.stdout)["error"]
    assert "http://127.0.0.1:9" in err and "Check that the server runs" in err
    assert "Traceback" not in proc.stderr


def test_search_falls_back_to_bm25_when_the_embedding_server_dies(settings: Settings, tmp_path: Path) -> None:
    import asyncio

    from graph.rag import build_rag_graph

    folder = notes(tmp_path / "notes", 3)
    with ollama_server() as (url, _):
        c = Components(ollama_settings(settings, url))
        ingest(c, folder)
        c.corpus()  # loaded while everything is up
    try:  # the server is gone now
        out = asyncio.run(build_rag_graph(c).ainvoke({"mode": "search", "question": "word1 shared text"}))
        assert out["results"][0]["title"] == "Note 1"
        assert all(set(r["ranks"]) == {"bm25"} for r in out["results"])
        assert any("BM25 only" in w for w in out["warnings"])
    finally:
        c.close()
