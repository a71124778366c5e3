"""The ingestion graph: load → parse → chunk → embed → upsert (batch by batch) → prune → optimise → BM25 → sentences.

Each batch is written in one request and bumps the collection version, so an interrupted run
keeps every finished batch and the next run picks up the rest (unchanged documents are
skipped by content hash).
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.graph import END, START, StateGraph

from components.factory import Components
from graph.ingest_state import IngestContext, IngestInput, IngestOutput, IngestState
from nodes.ingest import (
    chunk_documents,
    embed_chunks,
    index_sentences,
    load_sources,
    optimize_index,
    parse_documents,
    prepare_routing,
    prune_documents,
    refresh_bm25,
    upsert_chunks,
)


def more_pending(state: IngestState) -> Literal["chunk_documents", "prune_documents"]:
    """After parsing and after each written batch: chunk the next batch, or finish with pruning."""
    return "chunk_documents" if state.get("pending") else "prune_documents"


def build_ingest_graph(components: Components | None = None) -> Any:
    """Compile the ingestion graph; components default to the process settings, lazily."""
    c = components or Components()
    builder = StateGraph(
        IngestState, context_schema=IngestContext, input_schema=IngestInput, output_schema=IngestOutput
    )
    builder.add_node(load_sources.make(c))
    builder.add_node(parse_documents.make(c))
    builder.add_node(chunk_documents.make(c))
    builder.add_node(embed_chunks.make(c))
    builder.add_node(upsert_chunks.make(c))
    builder.add_node(prune_documents.make(c))
    builder.add_node(optimize_index.make(c))
    builder.add_node(refresh_bm25.make(c))
    builder.add_node(index_sentences.make(c))
    builder.add_node(prepare_routing.make(c))
    builder.add_edge(START, "load_sources")
    builder.add_edge("load_sources", "parse_documents")
    builder.add_conditional_edges("parse_documents", more_pending)
    builder.add_edge("chunk_documents", "embed_chunks")
    builder.add_edge("embed_chunks", "upsert_chunks")
    builder.add_conditional_edges("upsert_chunks", more_pending)
    # BM25 weights settled before the index is optimised: a rewrite after it would leave every
    # chunk's copy in an unoptimised segment, read by each search and each opening of the store
    builder.add_edge("prune_documents", "refresh_bm25")
    builder.add_edge("refresh_bm25", "optimize_index")
    builder.add_edge("optimize_index", "index_sentences")
    builder.add_edge("index_sentences", "prepare_routing")
    builder.add_edge("prepare_routing", END)
    return builder.compile(name="ingest")
