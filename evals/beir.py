"""BEIR-layout data sets and the standard retrieval metrics (document level).

Layout: ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl`` (``_id``, ``text``)
and ``qrels/<split>.tsv`` (``query-id  corpus-id  score`` with a header line).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class BeirDataset:
    """A corpus, the queries of one split that have judgements, and those judgements."""

    name: str
    corpus: dict[str, dict[str, str]]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def load_qrels(path: Path, split: str = "test") -> dict[str, dict[str, int]]:
    """Positive judgements of one split: query id → {doc id: grade}."""
    qrels_file = Path(path) / "qrels" / f"{split}.tsv"
    if not qrels_file.exists():
        available = sorted(p.stem for p in (Path(path) / "qrels").glob("*.tsv"))
        raise FileNotFoundError(f"{qrels_file} not found; splits available here: {available}")
    qrels: dict[str, dict[str, int]] = {}
    with qrels_file.open(encoding="utf-8") as f:
        reader = csv.reader(f, delimiter="\t")
        next(reader, None)
        for row in reader:
            if len(row) >= 3 and int(row[2]) > 0:
                qrels.setdefault(row[0], {})[row[1]] = int(row[2])
    return qrels


def load_beir(path: Path, split: str = "test") -> BeirDataset:
    """Load a BEIR folder; only queries judged in ``split`` are kept."""
    path = Path(path)
    qrels = load_qrels(path, split)
    corpus: dict[str, dict[str, str]] = {}
    with (path / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                corpus[str(d["_id"])] = {"title": d.get("title") or "", "text": d.get("text") or ""}
    queries: dict[str, str] = {}
    with (path / "queries.jsonl").open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                q = json.loads(line)
                if str(q["_id"]) in qrels:
                    queries[str(q["_id"])] = q["text"]
    return BeirDataset(name=path.name, corpus=corpus, queries=queries, qrels=qrels)


def ndcg_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int = 10) -> float:
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted(rels.values(), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    if not rels:
        return 0.0
    return len(set(ranked[:k]) & set(rels)) / len(rels)


def mrr_at_k(ranked: Sequence[str], rels: Mapping[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k]):
        if rels.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def evaluate(run: Mapping[str, Sequence[str]], qrels: Mapping[str, Mapping[str, int]]) -> dict[str, float]:
    """Mean nDCG@10, Recall@5/10/100 and MRR@10 over the judged queries of ``run``."""
    ids = [q for q in qrels if q in run]
    if not ids:
        return {"ndcg@10": 0.0, "recall@5": 0.0, "recall@10": 0.0, "recall@100": 0.0, "mrr@10": 0.0}
    n = len(ids)
    return {
        "ndcg@10": sum(ndcg_at_k(run[q], qrels[q]) for q in ids) / n,
        "recall@5": sum(recall_at_k(run[q], qrels[q], 5) for q in ids) / n,
        "recall@10": sum(recall_at_k(run[q], qrels[q], 10) for q in ids) / n,
        "recall@100": sum(recall_at_k(run[q], qrels[q], 100) for q in ids) / n,
        "mrr@10": sum(mrr_at_k(run[q], qrels[q]) for q in ids) / n,
    }
