"""The graphs `langgraph dev` and a LangGraph server load (``langgraph.json``): ``rag`` and
``ingest``, built once on the process's shared components.

Kept apart from their definitions (``graph/rag.py``, ``graph/ingest.py``) so that importing a
builder builds nothing: a one-shot `rag search` builds the one graph it runs, on its own components.
"""

from __future__ import annotations

from components.factory import shared_components
from graph.ingest import build_ingest_graph
from graph.rag import build_rag_graph

rag = build_rag_graph(shared_components())
ingest = build_ingest_graph(shared_components())
