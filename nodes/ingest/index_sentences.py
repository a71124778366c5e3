"""After the write: embed the sentences of new sections for extractive answers, drop the gone ones.

Extractive Q&A scores a passage's sentences by their cosine to the question; stored vectors
save it the embedding at question time (components/stores/sentences.py says how much). This is
the longest step of an ingestion after the chunks' own embedding, so it reports progress, and
it writes in batches: an interrupted run keeps what it wrote and the next one resumes. When the
sentences were current before this run, only the documents it wrote or pruned are reconciled;
otherwise the whole collection is, so an index ingested without sentence vectors gets them on
the next run, even with nothing new to write. A failure is logged, not
raised: the chunks are in Qdrant, and answers embed whatever sentences they find no vector for.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from graph.ingest_state import MANY_CHANGED, IngestContext, IngestState
from nodes.types import IngestNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def index_sentences(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        ctx = runtime.context or IngestContext()
        out: dict[str, Any] = {}
        collection = state.get("collection") or None
        if ctx.sentence_vectors and c.index(collection).exists():

            def progress(done: int, total: int) -> None:
                runtime.stream_writer({"event": "sentences", "done": done, "total": total})

            try:
                sync = c.sentences(collection).sync
                listed = list(state.get("changed_doc_ids") or [])
                # too many to list: every section is reconciled
                changed = None if MANY_CHANGED in listed else listed
                since = state.get("base_version")
                stats = await asyncio.to_thread(sync, changed=changed, since=since, progress=progress)
                out = {"sentences": stats.sentences, "sentences_embedded": stats.embedded}
            except Exception as e:  # an optimisation: the chunks stay, answers embed sentences themselves
                log.warning(
                    "sentence vectors not updated (extractive answers will embed their sentences): %s: %s",
                    type(e).__name__,
                    e,
                )
        return {**out, "seconds": round(time.time() - float(state.get("started") or time.time()), 3)}

    return index_sentences
