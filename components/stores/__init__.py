"""Where data lives: the Qdrant collection (embedded local mode or a server through one client),
the BM25 index over the same chunks (pickled next to the store, keyed by the collection's
version), the sentence vectors of the extractive path (a companion collection), and the
semantic answer cache."""
