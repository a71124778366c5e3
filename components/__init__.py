"""Framework-free building blocks, one subpackage per concern (text, models, stores, retrieval,
ingestion, heuristics, resilience), plus the process settings and the lazily built container
(``factory.Components``) that the graphs hand to their nodes.

Nothing here imports LangGraph or the ``graph``/``nodes`` layers (an import-linter contract in
the test command keeps it so); nodes adapt these blocks to graph state.
"""
