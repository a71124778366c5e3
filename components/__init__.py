"""Framework-free building blocks: embedders, indexes, loaders, chunker, settings.

Nothing here imports LangGraph; nodes adapt these components to graph state.
"""
