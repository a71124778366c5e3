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
alone. Each point lists the documents whose sections hold it (payload ``doc_id``), so that an
ingestion reconciles the set for the documents it wrote or pruned only (``sync``): their missing
sentences are embedded, and sentences no section holds any more are deleted. A 10-document
change costs those documents, whatever the collection's size; a collection that is behind (an
interrupted run, an earlier version's points without their documents) is reconciled whole. Sentences are
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
from typing import TYPE_CHECKING, Any

import numpy as np

from components.ingestion.chunker import stitch_parent
from components.stores.points import of_documents
from components.stores.qdrant import QdrantIndex
from components.text.sentences import candidate_sentences

if TYPE_CHECKING:  # the embedder (and langchain-core under it) loads where it is used
    from components.models.embedders import Embedder

log = logging.getLogger(__name__)

SUFFIX = "__sentences"
#: bump when ``candidate_sentences`` changes: the next ingestion then re-reconciles every section
SPLITTER = 1
_NS = uuid.UUID("0c5e3a8e-6d0b-4c71-9f4e-2b7d9a1e5c33")
#: chunk payload fields needed to rebuild sections
_FIELDS = ["text", "doc_id", "chunk_id", "chunk_index", "parent_id", "parent_start", "parent_end"]
#: sentences embedded and written per request: a progress step, and what an interruption loses
BATCH = 256
#: documents read per request when reconciling the documents a run changed
DOC_BATCH = 512
REFS = "doc_id"
"""Payload key of a sentence's documents: a list, under the key ``of_documents`` selects on, so the
chunk collection's keyword index on ``doc_id`` serves the companion collection too."""
REFS_META = "refs"
"""Companion metadata key: every point lists its documents (an earlier version's did not)."""

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


def section_sentences(chunks: Iterable[dict[str, Any]]) -> dict[str, tuple[str, set[str]]]:
    """Sentence id → (text, the documents holding it) for every candidate sentence of the sections
    these chunk payloads form.

    Chunks are grouped by their parent section and stitched back together (as parent
    expansion does), so sentences cut by a chunk boundary are indexed whole; a chunk without
    a parent counts as its own section.
    """
    sections: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for pl in chunks:
        key = str(pl.get("parent_id") or f"chunk:{pl.get('chunk_id')}")
        sections[key].append(pl)
    out: dict[str, tuple[str, set[str]]] = {}
    for group in sections.values():
        doc = str(group[0].get("doc_id"))
        for s in candidate_sentences(stitch_parent(group)):
            out.setdefault(sentence_id(s), (s, set()))[1].add(doc)
    return out


@dataclass
class Plan:
    """What a sync writes: sentences to embed (id → text, documents), documents lists to rewrite, points to delete."""

    embed: dict[str, tuple[str, set[str]]]
    relist: dict[str, set[str]]
    delete: list[str]
    sentences: int


def _listed(points: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, set[str]]:
    """Point id → the documents its payload lists, from (id, payload) pairs."""
    out: dict[str, set[str]] = {}
    for i, payload in points:
        docs = payload.get(REFS) or []
        out[i] = {str(d) for d in (docs if isinstance(docs, list) else [docs])}
    return out


def _pairs(points: Iterable[Any]) -> Iterable[tuple[str, dict[str, Any]]]:
    return ((str(p.id), dict(p.payload or {})) for p in points)


COUNT_META = "sentences"
"""Companion metadata key: how many sentences the last sync left (what `rag status` shows)."""


def _reflects(meta: dict[str, Any], version: int) -> bool:
    """Whether a companion collection's metadata says it matches chunk-collection ``version``."""
    return int(meta.get("source_version", -1)) == version and meta.get("splitter") == SPLITTER


class SentenceIndex:
    """The companion collection of one chunk collection: sync at ingestion, look up at question time."""

    def __init__(self, chunks: QdrantIndex, store: QdrantIndex, embedder: Callable[[], Embedder]) -> None:
        """``store`` is the companion collection (``Components.sentences`` opens it on the same client);
        ``embedder`` gives the embedder when one is first needed (`rag status` reads counts only)."""
        self.chunks = chunks
        self.store = store
        self._embedder = embedder

    @property
    def embedder(self) -> Embedder:
        return self._embedder()

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
        return embed_stored([self], texts)

    def state(self, version: int) -> dict[str, Any]:
        """For ``rag status``: sentences stored, and whether they reflect the collection's ``version``."""
        if not self.store.exists():
            return {"exists": False, "sentences": 0, "current": False}
        meta = self.store.metadata()
        current = _reflects(meta, version)
        # a current companion's count is in its metadata: the shard (45k vectors for SciFact) stays closed
        sentences = int(meta[COUNT_META]) if current and COUNT_META in meta else self.store.count()
        return {"exists": True, "sentences": sentences, "current": current}

    # ------------------------------------------------------------------ ingestion
    def sync(
        self, *, changed: Sequence[str] | None = None, since: int | None = None, progress: Progress | None = None
    ) -> SyncStats:
        """Bring the companion collection in line with the chunk collection's sections.

        ``changed``: the documents an ingestion wrote or pruned since chunk-collection version
        ``since``; when the companion reflected ``since``, only their sentences are reconciled.
        Otherwise (or without them) every section is. Skipped when it already reflects the
        current version. Embeds and writes in batches, so an interrupted sync keeps what it wrote
        and the next one resumes (reconciling the whole collection).
        """
        meta = self.chunks.metadata()
        version = int(meta.get("version", 0))
        model = str(meta.get("embedding_model"))
        exists = self.store.exists()
        smeta: dict[str, Any] = {}
        if exists:
            smeta = self.store.metadata()
            if smeta.get("embedding_model") != model:  # derived data: rebuild for the new model
                log.info("sentence vectors were made with %s; rebuilding for %s", smeta.get("embedding_model"), model)
                self.store.drop()
                exists, smeta = False, {}
            elif _reflects(smeta, version):
                return SyncStats(sentences=self.store.count(), embedded=0, removed=0, skipped=True)
        partial = changed is not None and since is not None and smeta.get(REFS_META) and _reflects(smeta, since)
        plan = self._plan_for(list(changed or [])) if partial else self._plan_all(exists)
        total = len(plan.embed)
        if progress is not None:
            progress(0, total)
        ids = list(plan.embed)
        for start in range(0, total, BATCH):
            part = ids[start : start + BATCH]
            vecs = self.embedder.encode_queries([plan.embed[i][0] for i in part], cache=False)
            if not exists:
                self.store.ensure(embedding_model=model, dim=int(vecs.shape[1]))
                exists = True
            self.store.upsert_vectors(part, vecs, payloads=[{REFS: sorted(plan.embed[i][1])} for i in part])
            if progress is not None:
                progress(min(start + BATCH, total), total)
        if plan.relist:
            self.store.set_payloads({i: {REFS: sorted(docs)} for i, docs in plan.relist.items()})
        self.store.delete_points(plan.delete)
        if exists:
            if total or plan.delete:
                self.store.optimize()
            facts = {REFS_META: True, COUNT_META: self.store.count()}
            self.store.update_metadata(source_version=version, splitter=SPLITTER, **facts)
        log.info(
            "sentence vectors (%s): %d sentences, %d embedded, %d relisted, %d removed",
            "the changed documents" if partial else "every section",
            plan.sentences,
            total,
            len(plan.relist),
            len(plan.delete),
        )
        return SyncStats(sentences=plan.sentences, embedded=total, removed=len(plan.delete))

    def _plan_all(self, exists: bool) -> Plan:
        """Every section against every stored sentence."""
        held = section_sentences(pl.payload or {} for pl in self.chunks.scroll(fields=_FIELDS))
        stored = _listed(_pairs(self.store.scroll(fields=[REFS]))) if exists else {}
        return Plan(
            embed={i: held[i] for i in held if i not in stored},
            relist={i: held[i][1] for i in held if i in stored and stored[i] != held[i][1]},
            delete=[i for i in stored if i not in held],
            sentences=len(held),
        )

    def _plan_for(self, changed: list[str]) -> Plan:
        """The sections of the ``changed`` documents against the stored sentences that list them, or
        that they now hold; a sentence other documents also hold keeps them."""
        gone = set(changed)
        held: dict[str, tuple[str, set[str]]] = {}
        listed: dict[str, set[str]] = {}
        for start in range(0, len(changed), DOC_BATCH):
            docs = of_documents(changed[start : start + DOC_BATCH])
            for i, (text, holders) in section_sentences(
                pl.payload or {} for pl in self.chunks.scroll(fields=_FIELDS, scroll_filter=docs)
            ).items():
                held.setdefault(i, (text, set()))[1].update(holders)
            listed.update(_listed(_pairs(self.store.scroll(fields=[REFS], scroll_filter=docs))))
        # sentences the changed documents now hold that other documents already held
        listed.update(_listed(self.store.payloads([i for i in held if i not in listed]).items()))
        relist: dict[str, set[str]] = {}
        delete: list[str] = []
        for i, before in listed.items():
            after = (before - gone) | (held[i][1] if i in held else set())
            if not after:
                delete.append(i)
            elif after != before:
                relist[i] = after
        embed = {i: v for i, v in held.items() if i not in listed}
        return Plan(embed=embed, relist=relist, delete=delete, sentences=self.store.count() + len(embed) - len(delete))


def embed_stored(indexes: Sequence[SentenceIndex], texts: list[str]) -> np.ndarray:
    """``SentenceIndex.embed`` over the companion collections of several chunk collections (one
    embedding model): a sentence stored in any of them is read, the rest embedded."""
    embedder = indexes[0].embedder
    have = embedder.cached_queries(texts)
    missing = [t for t in dict.fromkeys(texts) if t not in have]
    for index in indexes:
        if not missing:
            break
        stored = index.lookup(missing)
        if stored:
            embedder.remember_queries(stored)
            missing = [t for t in missing if t not in stored]
    return embedder.encode_queries(texts)
