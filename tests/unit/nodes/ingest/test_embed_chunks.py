"""Embedding: a vector per chunk, and each chunk's injection score, so the question-time screen costs nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from components.factory import Components
from guardrails.documents import SCORE_KEY
from nodes.ingest import chunk_documents, embed_chunks, load_sources, parse_documents
from tests.unit.nodes.helpers import INBOX, run, steps


def test_every_chunk_gets_a_vector_and_an_injection_score(components: Components, vault: Path) -> None:
    (vault / "Inbox.md").write_text(INBOX, encoding="utf-8")
    state = steps(components, {"paths": [str(vault)]}, load_sources, parse_documents, chunk_documents)
    out = run(embed_chunks.make(components), state)
    for record, vectors in zip(out["batch"], out["vectors"], strict=True):
        assert len(vectors) == len(record["payloads"])
        assert {len(v) for v in vectors} == {components.embedder.dim}
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    scores = {r["payloads"][0]["title"]: max(p[SCORE_KEY] for p in r["payloads"]) for r in out["batch"]}
    assert scores["会議メモ"] >= 0.5 > scores["Monstera Care"] and scores["味噌汁"] < 0.5
