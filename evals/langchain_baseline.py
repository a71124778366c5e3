"""The hybrid retriever a LangChain user would build over the same chunks, for comparison.

    EnsembleRetriever(retrievers=[BM25Retriever, QdrantVectorStore.as_retriever()], weights=[0.5, 0.5])

* ``BM25Retriever.from_documents`` over the very chunks stored in Qdrant, each one's text being
  title, section path and chunk body (what our BM25 indexes, ``search_text``), with the
  retriever's default preprocessing (``str.split``: no stemming, no Japanese segmentation).
* ``langchain_qdrant.QdrantVectorStore`` on the same client and collection, with our embedder
  (a LangChain ``Embeddings``), as ``components.stores.vectorstore.langchain_vectorstore``
  configures it for any LangChain program: the ``dense`` named vector, ``text`` as the content key.

Both return ``k`` chunks. ``EnsembleRetriever`` fuses by weighted RRF (c=60). It merges the same
chunk from the two lists by ``id_key``; by default that is the page content, which differs here
(BM25 sees title + section + body, Qdrant returns the body), so the point id (``_id``, which
langchain-qdrant puts in every document's metadata) is used instead, as a user whose two
retrievers index different text would have to.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.documents import Document

from components.factory import Components
from components.stores.lexical import search_text
from components.stores.vectorstore import langchain_vectorstore

log = logging.getLogger(__name__)

ID_KEY = "_id"


@dataclass
class LangChainBaseline:
    """The ensemble retriever and the chunk → document map its results are read with."""

    retriever: Any
    doc_of_point: dict[str, str]
    build_seconds: float

    def chunk_doc_ids(self, query: str) -> list[str]:
        """Document id of each returned chunk, in the ensemble's order."""
        docs: list[Document] = self.retriever.invoke(query)
        return [self.doc_of_point[str(d.metadata[ID_KEY])] for d in docs]


def import_classes() -> tuple[Any, Any]:
    """EnsembleRetriever and BM25Retriever (langchain-community warns that it is being sunset)."""
    try:
        from langchain_classic.retrievers import EnsembleRetriever

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            from langchain_community.retrievers import BM25Retriever
    except ImportError as e:  # pragma: no cover - optional dependency
        raise SystemExit(
            'The langchain baseline needs the bench extra: pip install -e ".[bench]" '
            "(langchain-classic, langchain-community)"
        ) from e
    return EnsembleRetriever, BM25Retriever


def chunk_documents(point_ids: Sequence[str], payloads: Sequence[dict[str, Any]]) -> list[Document]:
    """One LangChain document per stored chunk: the text our BM25 indexes, the point id in metadata."""
    return [
        Document(page_content=search_text(pl), metadata={ID_KEY: pid, "doc_id": str(pl.get("doc_id"))}, id=pid)
        for pid, pl in zip(point_ids, payloads, strict=True)
    ]


def build_baseline(
    c: Components, collection: str, *, k: int, weights: tuple[float, float] = (0.5, 0.5)
) -> LangChainBaseline:
    """Build the ensemble over the chunks of ``collection``, exactly as stored, with their point ids."""
    ensemble_cls, bm25_cls = import_classes()
    points = list(c.index(collection).scroll())
    point_ids, payloads = [str(p.id) for p in points], [dict(p.payload or {}) for p in points]
    t0 = time.perf_counter()
    bm25 = bm25_cls.from_documents(chunk_documents(point_ids, payloads), k=k)
    store = langchain_vectorstore(c.index(collection), c.embedder)
    ensemble = ensemble_cls(
        retrievers=[bm25, store.as_retriever(search_kwargs={"k": k})], weights=list(weights), id_key=ID_KEY
    )
    seconds = time.perf_counter() - t0
    log.info("built the LangChain baseline over %d chunks in %.1fs", len(points), seconds)
    doc_of_point = {pid: str(pl.get("doc_id")) for pid, pl in zip(point_ids, payloads, strict=True)}
    return LangChainBaseline(ensemble, doc_of_point, seconds)
