"""Nodes of the ingestion graph: load → parse → chunk → embed → upsert (→ prune) → refresh BM25."""
