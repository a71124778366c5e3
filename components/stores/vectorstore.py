"""A collection written by ``rag ingest``, read through langchain-qdrant's ``QdrantVectorStore``.

LangChain programs (an ``EnsembleRetriever``, a ``MultiQueryRetriever``, an agent's tool) take a
``VectorStore``; this gives them one over our points without a second index. Dense similarity
only: BM25, fusion and reranking are the query graph's (``graph.retriever`` for all of them).

``QdrantVectorStore`` reads a document's metadata from one payload key, but our chunks keep
their metadata flat at the top of the payload (so filters and payload indexes reach each field
by name), and the nested ``metadata`` key holds only the document's own extras. The subclass
below returns the whole payload but the text as the metadata; a plain ``QdrantVectorStore``
configured with the same keys (docs/langchain.md) still reads the text and those extras.

The store reads only: ingestion keeps invariants a bare ``add_texts`` cannot (deterministic
point ids, ``doc_id``/``chunk_index``/``content_hash`` on every point, the collection's version
that tells BM25 caches they are stale), so writes go through ``rag ingest``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, cast

import qdrant_edge as qe
from langchain_core.documents import Document
from langchain_qdrant import QdrantVectorStore, RetrievalMode
from qdrant_client import QdrantClient, models

from components.models.embedders import Embedder
from components.resilience.errors import IndexingError
from components.stores.collection import DISTANCE
from components.stores.edge import EdgeClient
from components.stores.points import CONTENT_KEY, DENSE, METADATA_KEY
from components.stores.qdrant import QdrantIndex
from components.stores.server_client import ServerClient, edge_filter


class CollectionVectorStore(QdrantVectorStore):
    """``QdrantVectorStore`` whose documents carry the chunk's whole payload as metadata; read-only."""

    @classmethod
    def _document_from_point(
        cls, scored_point: Any, collection_name: str, content_payload_key: str, metadata_payload_key: str
    ) -> Document:
        payload = dict(scored_point.payload or {})
        text = payload.pop(content_payload_key, "")
        # _id and _collection_name as langchain-qdrant sets them, so code written for it still works
        metadata = {**payload, "_id": scored_point.id, "_collection_name": collection_name}
        return Document(page_content=text, metadata=metadata, id=str(scored_point.id))

    def add_texts(  # type: ignore[override]  # langchain-qdrant's own signature
        self,
        texts: Iterable[str],
        metadatas: list[dict[Any, Any]] | None = None,
        ids: Sequence[str | int] | None = None,
        batch_size: int = 64,
        **kwargs: Any,
    ) -> list[str | int]:
        raise IndexingError(
            f"Collection {self.collection_name!r} is written by `rag ingest` (it keeps each document's "
            f"chunks, ids and version consistent); add files there and ingest them instead."
        )


class _EdgeForLangChain:
    """The embedded store's client as langchain-qdrant calls it: the filter and search parameters
    it passes (qdrant-client's models, a LangChain user's filter among them) in Edge's types."""

    def __init__(self, edge: EdgeClient) -> None:
        self._edge = edge

    def __getattr__(self, name: str) -> Any:  # get_collection, retrieve: Edge's answers have the attributes read
        return getattr(self._edge, name)

    def query_points(
        self,
        collection_name: str,
        query_filter: models.Filter | None = None,
        search_params: models.SearchParams | None = None,
        **kwargs: Any,
    ) -> Any:
        params = None
        if search_params is not None:
            params = qe.SearchParams(hnsw_ef=search_params.hnsw_ef, exact=bool(search_params.exact))
        return self._edge.query_points(
            collection_name, query_filter=edge_filter(query_filter), search_params=params, **kwargs
        )


def langchain_vectorstore(index: QdrantIndex, embedder: Embedder) -> QdrantVectorStore:
    """A ``QdrantVectorStore`` over ``index``'s collection, embedding queries with ``embedder``.

    Shares the index's client (embedded store: local mode locks its folder per client; server:
    one connection pool). Raises ``CollectionNotFound`` when the collection does not exist and
    ``EmbeddingMismatch`` when it was built with another model, before langchain-qdrant would
    complain about dimensions.
    """
    index.check_model(index.metadata(), embedding_model=embedder.model_id)
    client = index.client
    raw = client.raw if isinstance(client, ServerClient) else _EdgeForLangChain(client)
    return CollectionVectorStore(
        # the Edge store's client answers the calls QdrantVectorStore makes (get_collection,
        # query_points, retrieve) with the attributes of qdrant-client's answers
        client=cast(QdrantClient, raw),
        collection_name=index.collection,
        embedding=embedder,
        retrieval_mode=RetrievalMode.DENSE,
        vector_name=DENSE,
        content_payload_key=CONTENT_KEY,
        metadata_payload_key=METADATA_KEY,
        distance=models.Distance(DISTANCE),
    )
