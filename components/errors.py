"""Typed errors with actionable messages.

Every error says what happened and what to do about it, so the CLI and the graph can show the
message as-is and never a stack trace.
"""

from __future__ import annotations


class RAGError(Exception):
    """Base class of every error this project raises on purpose."""


class ConfigurationError(RAGError):
    """A setting is missing or invalid."""


class IndexingError(RAGError):
    """A document could not be ingested (the rest of the run goes on)."""


class QueryError(RAGError):
    """A query is invalid (empty, malformed filter, ...)."""


class CollectionNotFound(RAGError):
    """The collection a query or status call names does not exist."""


class EmbeddingMismatch(RAGError):
    """The collection was built with another embedding model than the one configured."""


class StoreLocked(RAGError):
    """The embedded Qdrant folder is held by another process."""


class ServiceUnavailable(RAGError):
    """An external service (vector store, LLM, embeddings server) did not answer."""
