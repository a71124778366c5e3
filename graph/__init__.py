"""LangGraph wiring: state, context and the compiled graphs (``rag`` and ``ingest``)."""
