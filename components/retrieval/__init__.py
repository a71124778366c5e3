"""Finding chunks: dense search in Qdrant, BM25, the fusion registry that joins them, metadata
filters applied identically on both sides, pseudo-relevance feedback, parent sections for
generation, and web search. Functions take the index, embedder or lexical index they use, not
the process's whole component container."""
