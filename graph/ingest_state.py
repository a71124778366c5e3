"""State and context of the ingestion graph.

Records in state are plain dicts and lists (documents, chunk payloads, vectors of the current
batch only), so the state serialises for ``langgraph dev`` checkpoints and stays small.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Annotated, Any

from typing_extensions import TypedDict


class IngestInput(TypedDict, total=False):
    paths: list[str]
    """Files and folders to ingest (Markdown, text, HTML, PDF, BEIR JSONL)."""
    prune: bool
    """Remove indexed documents under these paths that no longer exist."""


MANY_CHANGED = "*"
"""``changed_doc_ids`` past ``MAX_CHANGED``: the run changed too many documents to list (the state is
checkpointed at every batch), and what follows treats the whole collection as changed."""
MAX_CHANGED = 2048


def _changed(old: list[str] | None, new: list[str] | None) -> list[str]:
    """Documents a run wrote or pruned, added up over its batches; ``None`` (the run's first node)
    starts the list afresh, so a thread's next run does not inherit them."""
    if new is None:
        return []
    both = [*(old or []), *new]
    return [MANY_CHANGED] if MANY_CHANGED in both or len(both) > MAX_CHANGED else both


class IngestState(IngestInput, total=False):
    files: list[dict[str, Any]]
    """Source files found, with their vault."""
    ignored: int
    """Files of unsupported types met while walking folders."""
    failures: Annotated[list[dict[str, str]], operator.add]
    """Files or lines that were not ingested, with the reason."""
    pending: list[dict[str, Any]]
    """New or changed documents still to write."""
    seen_doc_ids: list[str]
    unsafe_origins: list[str]
    batch: list[dict[str, Any]]
    """The current batch: per document its id, chunk payloads and texts."""
    vectors: list[list[list[float]]]
    """Embeddings of the current batch, per document."""
    documents: int
    new: int
    updated: int
    unchanged: int
    written_documents: Annotated[int, operator.add]
    written_chunks: Annotated[int, operator.add]
    pruned: int
    retyped: int
    """Chunks of an older version labelled with their chunk type (payload only)."""
    changed_doc_ids: Annotated[list[str], _changed]
    """Documents this run wrote or pruned (what the sentence vectors are reconciled for), or
    ``[MANY_CHANGED]``."""
    base_version: int
    """The collection's version when the run began (-1: it did not exist)."""
    collection: str
    version: int
    started: float
    sentences: int
    """Distinct sentences with a stored vector (for extractive answers)."""
    sentences_embedded: int
    """Of which embedded by this run."""
    seconds: float


class IngestOutput(TypedDict, total=False):
    collection: str
    documents: int
    new: int
    updated: int
    unchanged: int
    written_documents: int
    written_chunks: int
    pruned: int
    retyped: int
    ignored: int
    failures: list[dict[str, str]]
    version: int
    sentences: int
    sentences_embedded: int
    seconds: float


@dataclass
class IngestContext:
    """Knobs of one ingestion run (Studio shows these)."""

    collection: str = field(
        default="", metadata={"description": "Collection to write; empty means the COLLECTION setting."}
    )
    batch_documents: int = field(
        default=64, metadata={"description": "Documents embedded and written per batch (one write request each)."}
    )
    chunk_size: int = field(
        default=0, metadata={"description": "Chunk size in characters; 0 means the CHUNK_SIZE setting."}
    )
    chunk_overlap: int = field(
        default=-1, metadata={"description": "Overlap in characters; -1 means the CHUNK_OVERLAP setting."}
    )
    sentence_vectors: bool = field(
        default=True,
        metadata={
            "description": "Embed every section's sentences after writing, so extractive answers need not "
            "embed them per question (about as long again as the chunks' own embedding)."
        },
    )


def changed_collection(state: IngestState) -> bool:
    """Whether the run wrote, pruned or relabelled chunks: what the steps after the writes act on."""
    return bool(state.get("written_chunks") or state.get("pruned") or state.get("retyped"))
