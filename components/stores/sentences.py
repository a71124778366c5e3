"""Sentence vectors of the indexed sections, computed at ingestion for extractive answers.

The extractive answer scores candidate sentences by their cosine to the question, and the
answer grader reuses those cosines. Embedding the sentences at question time costs ~190 ms
per extractive SciFact answer on a 2-core CPU (~1 ms per token, three sentences of ~55 tokens;
docs/decisions/0006-sentence-vectors-at-ingestion.md). Here they are embedded once, at
ingestion, with the query encoder (the same vectors a question-time embedding gives: e5's
symmetric "query: " space, one text per pass), and kept in a companion Qdrant collection
``<collection>__sentences`` next to the chunks, so the embedded store and a Qdrant server hold
them alike.

Points are content-addressed: a sentence's id is a hash of its text, so a sentence repeated
across chunks, sections or documents is embedded once, a re-ingested unchanged document costs
nothing, and the sentences a passage is split into at question time are found by their text
alone. The set is reconciled with the chunk collection after each ingestion (``sync``):
missing sentences are embedded, sentences no section holds any more are deleted. Sentences are
taken from each parent section rebuilt from its chunks, as ``fetch_parents`` hands them to
generation; a passage cut differently (a lone chunk, a web page) is embedded at question time.

Lookups never fail an answer: whatever goes wrong, the caller embeds what was not found.
"""

from __future__ import annotations

import logging
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from components.ingestion.chunker import stitch_parent
from components.models.embedders import Embedder
from components.stores.qdrant import QdrantIndex
from components.text.sentences import candidate_sentences

log = logging.getLogger(__name__)

SUFFIX = "__sentences"
#: bump when ``candidate_sentences`` changes: the next ingestion then re-reconciles every section
SPLITTER = 1
_NS = uuid.UUID("0c5e3a8e-6d0b-4c71-9f4e-2b7d9a1e5c33")
#: chunk payload fields needed to rebuild sections
_FIELDS = ["text", "doc_id", "chunk_id", "chunk_index", "parent_id", "parent_start", "parent_end"]
#: sentences embedded and written per request: a progress step, and what an interruption loses
BATCH = 256

Progress = Callable[[int, int], None]


def sentence_id(text: str) -> str:
    """The point id of a sentence: a hash of its text (the same sentence is one point)."""
    return str(uuid.uuid5(_NS, text))


@dataclass(frozen=True)
class SyncStats:
    sentences: int
    embedded: int
    removed: int
    skipped: bool = False


def section_sentences(chunks: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Sentence id → text for every candidate sentence of the sections these chunk payloads form.

    Chunks are grouped by their parent section and stitched back together (as parent
    expansion does), so sentences cut by a chunk boundary are indexed whole; a chunk without
    a parent counts as its own section.
    """
    sections: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for pl in chunks:
        key = str(pl.get("parent_id") or f"chunk:{pl.get('chunk_id')}")
        sections[key].append(pl)
    out: dict[str, str] = {}
    for group in sections.values():
        for s in candidate_sentences(stitch_parent(group)):
            out.setdefault(sentence_id(s), s)
    return out


def _reflects(meta: dict[str, Any], version: int) -> bool:
    """Whether a companion collection's metadata says it matches chunk-collection ``version``."""
    return int(meta.get("source_version", -1)) == version and meta.get("splitter") == SPLITTER


class SentenceIndex:
    """The companion collection of one chunk collection: sync at ingestion, look up at question time."""

    def __init__(self, chunks: QdrantIndex, store: QdrantIndex, embedder: Embedder) -> None:
        """``store`` is the companion collection (``Components.sentences`` opens it on the same client)."""
        self.chunks = chunks
        self.store = store
        self.embedder = embedder

    # ------------------------------------------------------------------ question time
    def lookup(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors of these sentences, by text; texts not stored (or any failure) are left out."""
        if not texts:
            return {}
        ids = {sentence_id(t): t for t in texts}
        try:
            found = self.store.vectors(list(ids))
        except Exception as e:  # no companion collection yet, a server hiccup: embed instead
            log.debug("sentence vectors not read (%s: %s); embedding instead", type(e).__name__, e)
            return {}
        return {ids[k]: v for k, v in found.items() if k in ids}

    def embed(self, texts: list[str]) -> np.ndarray:
        """Query-space vectors of ``texts`` (rows in order): stored ones read, the rest embedded.

        Read vectors go into the embedder's query cache, so the answer grader finds them
        there as it would after a question-time embedding.
        """
        have = self.embedder.cached_queries(texts)
        stored = self.lookup([t for t in dict.fromkeys(texts) if t not in have])
        if stored:
            self.embedder.remember_queries(stored)
        return self.embedder.encode_queries(texts)

    def state(self, version: int) -> dict[str, Any]:
        """For ``rag status``: sentences stored, and whether they reflect the collection's ``version``."""
        if not self.store.exists():
            return {"exists": False, "sentences": 0, "current": False}
        return {"exists": True, "sentences": self.store.count(), "current": _reflects(self.store.metadata(), version)}

    # ------------------------------------------------------------------ ingestion
    def sync(self, *, progress: Progress | None = None) -> SyncStats:
        """Bring the companion collection in line with the chunk collection's sections.

        Skipped when it already reflects the chunk collection's current version. Embeds and
        writes in batches, so an interrupted sync keeps what it wrote and the next resumes.
        """
        meta = self.chunks.metadata()
        version = int(meta.get("version", 0))
        model = str(meta.get("embedding_model"))
        exists = self.store.exists()
        if exists:
            smeta = self.store.metadata()
            if smeta.get("embedding_model") != model:  # derived data: rebuild for the new model
                log.info("sentence vectors were made with %s; rebuilding for %s", smeta.get("embedding_model"), model)
                self.store.drop()
                exists = False
            elif _reflects(smeta, version):
                return SyncStats(sentences=self.store.count(), embedded=0, removed=0, skipped=True)
        wanted = section_sentences(pl.payload or {} for pl in self.chunks.scroll(fields=_FIELDS))
        existing = {str(p.id) for p in self.store.scroll(fields=False)} if exists else set()
        missing = [i for i in wanted if i not in existing]
        stale = [i for i in existing if i not in wanted]
        total = len(missing)
        if progress is not None:
            progress(0, total)
        for start in range(0, total, BATCH):
            ids = missing[start : start + BATCH]
            vecs = self.embedder.encode_queries([wanted[i] for i in ids], cache=False)
            if not exists:
                self.store.ensure(embedding_model=model, dim=int(vecs.shape[1]))
                exists = True
            self.store.upsert_vectors(ids, vecs)
            if progress is not None:
                progress(min(start + BATCH, total), total)
        self.store.delete_points(stale)
        if exists:
            if total or stale:
                self.store.optimize()
            self.store.update_metadata(source_version=version, splitter=SPLITTER)
        log.info("sentence vectors: %d sentences, %d embedded, %d removed", len(wanted), total, len(stale))
        return SyncStats(sentences=len(wanted), embedded=total, removed=len(stale))
