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


class DocumentTooLarge(IndexingError):
    """A file or a corpus record is over the MAX_DOCUMENT_MB limit: it is skipped, the rest is ingested."""

    def __init__(self, what: str, size: int, limit: int) -> None:
        super().__init__(
            f"{what} is {size / 1e6:.3g} MB, over the {limit / 1e6:g} MB limit for one document; "
            f"split it into smaller files, or raise MAX_DOCUMENT_MB (to {_megabytes_above(size)} for this one) "
            "and ingest it again"
        )
        self.size = size
        self.limit = limit


def _megabytes_above(size: int) -> int:
    """The whole number of megabytes a limit needs to let ``size`` bytes in."""
    return -(-size // 1_000_000)


class QueryError(RAGError):
    """A query is invalid (empty, malformed filter, ...)."""


def for_the_caller(error: QueryError) -> QueryError:
    """``error`` as it leaves a graph's node: the same type and message, and a ``ValueError`` too.

    The LangGraph server shows its client a ``ValueError``'s message and hides every other
    exception's as "An internal error occurred" (``langgraph_api.serde``); a QueryError's message
    is written for the caller. It is not a ValueError everywhere: pydantic would turn one raised
    in a validator (``GraphRetriever``'s filters) into a ``ValidationError``."""
    if isinstance(error, ValueError):
        return error
    cls = type(error)
    if cls not in _TOLD:
        names = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        _TOLD[cls] = type(cls.__name__, (cls, ValueError), names)
    told = _TOLD[cls].__new__(_TOLD[cls])
    told.__dict__.update(error.__dict__)
    told.args = error.args
    return told


_TOLD: dict[type[QueryError], type[QueryError]] = {}


class UnknownDocument(QueryError):
    """A document id the collection does not hold, or holds outside the caller's access groups
    (the same words either way, so a hidden document's existence does not leak)."""

    def __init__(self, doc_id: str, collection: str) -> None:
        super().__init__(
            f"No document with id {doc_id!r} in collection {collection!r}; `rag search` shows each result's doc_id."
        )


class CollectionNotFound(RAGError):
    """The collection a query or status call names does not exist."""


class CollectionOutdated(RAGError):
    """The collection was written by an earlier version in a form this version does not read
    (its message says how to bring it up to date: `rag migrate` for the embedded store)."""


class EmbeddingMismatch(RAGError):
    """The collection was built with another embedding model than the one configured."""


class StoreLocked(RAGError):
    """The embedded Qdrant folder is held by another process."""


class ServiceUnavailable(RAGError):
    """An external service (vector store, LLM, embeddings server) did not answer."""


class WebSearchUnauthorized(ConfigurationError):
    """The web search provider refused the API key (HTTP 401/403): a setting to fix, not an outage."""


class CircuitOpen(ServiceUnavailable):
    """A service failed repeatedly and its circuit breaker is open: calls fail fast until a trial call is due.

    Failing fast spares every run the timeout of a service that is known to be down; callers take
    their fallback path at once.
    """

    def __init__(self, message: str, *, service: str, retry_in: float) -> None:
        super().__init__(message)
        self.service = service
        self.retry_in = retry_in


class LLMError(RAGError):
    """An LLM call failed in a way a retry may fix: HTTP 5xx, a read timeout, output that does not fit the schema.

    ``kind`` names the failure (``server_error``, ``timeout``, ``invalid_output``, ...) for logs and retry rules.
    """

    def __init__(self, message: str, *, kind: str = "error") -> None:
        super().__init__(message)
        self.kind = kind


class LLMUnavailable(ServiceUnavailable):
    """No LLM can answer now: none configured, the server unreachable, the model missing, or its breaker open.

    Retrying at once would not help; the graph takes its non-LLM path (extractive answer) instead.
    ``kind`` is ``not_configured``, ``connection``, ``model_missing`` or ``circuit_open``.
    """

    def __init__(self, message: str, *, kind: str = "connection") -> None:
        super().__init__(message)
        self.kind = kind
