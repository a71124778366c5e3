"""Last: the question router's exemplar vectors, embedded while the model is loaded for ingestion.

The non-LLM router (``components.heuristics.routing``) compares a question with 85 exemplar
questions, embedded as one batch (torch's) and kept on disk under DATA_DIR. Embedding them
here, where ingestion has the model loaded anyway, spares a first ``rag ask`` about 4 s of
loading torch; later runs read the file and embed nothing. A failure is logged, not raised: the
first question embeds them instead.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from langgraph.runtime import Runtime

from components.factory import Components
from graph.ingest_state import IngestContext, IngestState, changed_collection
from nodes.types import IngestNode as Node

log = logging.getLogger(__name__)


def make(c: Components) -> Node:
    async def prepare_routing(state: IngestState, runtime: Runtime[IngestContext]) -> dict[str, Any]:
        if changed_collection(state):  # questions about what it changed come next
            try:
                await asyncio.to_thread(c.router.prepare)
            except Exception as e:  # an optimisation: the first question embeds them instead
                log.warning("route exemplars not prepared (a first question embeds them): %s: %s", type(e).__name__, e)
        return {}

    return prepare_routing
