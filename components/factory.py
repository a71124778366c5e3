"""The set of components a process uses, built lazily from Settings.

Graphs receive one ``Components`` when they are built; nothing heavy happens until a node
first asks for a piece, so importing or compiling a graph loads no model and opens no store.
One Qdrant client serves every collection (local mode locks its folder per client).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from components.heuristics.routing import ExemplarRouter
from components.models.calibration import Calibration
from components.models.calibration import for_model as calibration_for
from components.models.reranker import Reranker
from components.resilience.breaker import Breakers
from components.resilience.breaker import from_settings as breakers_from_settings
from components.retrieval.filters import access_scope
from components.retrieval.web import WebSearch, make_web_search
from components.settings import Settings, get_settings
from components.stores.cache import CacheBackend
from components.stores.connection import ServerOptions
from components.stores.corpus import Corpus, MergedCorpus, StoreCorpus, open_store_corpus
from components.stores.database import sqlalchemy_url
from components.stores.examples import SUFFIX as EXAMPLES_SUFFIX
from components.stores.examples import ExampleIndex
from components.stores.feedback import FeedbackStore
from components.stores.gptcache_backend import FILE_NAME as CACHE_FILE
from components.stores.gptcache_backend import GPTCacheBackend
from components.stores.lexical import LexicalIndex
from components.stores.points import AUTHORS_KEY
from components.stores.qdrant import QdrantIndex
from components.stores.sentences import SUFFIX, SentenceIndex, embed_stored
from components.stores.termstats import path_for as terms_path_for
from components.text.tokenizer import Tokenizer

if TYPE_CHECKING:  # langchain-core costs half a second to import; `rag status` needs no chat model nor embedder
    import numpy as np
    from langchain_core.language_models import BaseChatModel

    from components.models.chat import ChatModels
    from components.models.embedders import Embedder


def embedder_from_settings(s: Settings) -> Embedder:
    """The configured embedder, its module imported on first use (langchain-core's ``Embeddings``
    under it is a tenth of a second that `rag status` does without)."""
    from components.models.embedders import from_settings

    return from_settings(s)


log = logging.getLogger(__name__)


class Known(NamedTuple):
    """The values of a collection's fields that query analysis trusts (``Components.known_values``)."""

    vaults: set[str]
    tags: set[str]
    authors: set[str]


class Components:
    """Lazily built, process-wide components; thread-safe."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        embedder: Embedder | None = None,
        chat_models: Mapping[str, BaseChatModel] | None = None,
        web: WebSearch | None = None,
        store_of: Components | None = None,
    ) -> None:
        """``chat_models`` (role → any LangChain chat model) and ``web`` replace what Settings would build.
        ``store_of``: components on the same store, whose client (the embedded store admits one per
        folder) and what they read of its collections these share."""
        self.settings = settings or get_settings()
        self._embedder = embedder
        self._chat_models = dict(chat_models or {})
        self._llm: ChatModels | None = None
        self._breakers: Breakers | None = None
        self._web = web
        self._cache: GPTCacheBackend | None = None
        self._feedback: FeedbackStore | None = None
        self._router: ExemplarRouter | None = None
        self._known: dict[Any, tuple[Any, Known]] = {}
        self._merged: dict[tuple[str, ...], MergedCorpus] = {}
        self._tokenizer: Tokenizer | None = None
        self._reranker: Reranker | None = None
        self._indexes: dict[str, QdrantIndex] = store_of._indexes if store_of is not None else {}
        self._corpora: dict[str, StoreCorpus] = store_of._corpora if store_of is not None else {}
        self._lock = threading.RLock()

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = embedder_from_settings(self.settings)
            return self._embedder

    @property
    def reranker(self) -> Reranker | None:
        """The configured cross-encoder, or None (search then skips reranking)."""
        with self._lock:
            if self._reranker is None and self.settings.reranker_model:
                self._reranker = Reranker(model=self.settings.reranker_model)
            return self._reranker

    @property
    def tokenizer(self) -> Tokenizer:
        with self._lock:
            if self._tokenizer is None:
                self._tokenizer = Tokenizer()
            return self._tokenizer

    def index(self, collection: str | None = None) -> QdrantIndex:
        name = collection or self.settings.collection
        with self._lock:
            if name not in self._indexes:
                s = self.settings
                first = next(iter(self._indexes.values()), None)
                idx = QdrantIndex(
                    collection=name,
                    url=s.qdrant_url,
                    path=s.qdrant_path,
                    api_key=s.qdrant_api_key,
                    timeout=s.qdrant_timeout,
                    server=ServerOptions(ca_cert=s.qdrant_ca_cert, shards=s.qdrant_shards, replicas=s.qdrant_replicas),
                    engine=s.qdrant_engine,
                    # one client per process and store: the embedded store locks its folder per client
                    client=first.client if first is not None else None,
                )
                self._indexes[name] = idx
            return self._indexes[name]

    def sentences(self, collection: str | None = None) -> SentenceIndex:
        """The sentence vectors of a collection (its companion collection, on the same client)."""
        chunks = self.index(collection)
        return SentenceIndex(chunks, self.index(chunks.collection + SUFFIX), lambda: self.embedder)

    def sentences_of(self, collections: Sequence[str]) -> Callable[[list[str]], np.ndarray]:
        """``SentenceIndex.embed`` over the sentence vectors of every collection a run reads."""
        indexes = [self.sentences(n) for n in dict.fromkeys(collections) or [self.settings.collection]]
        return functools.partial(embed_stored, indexes)

    def examples(self, collection: str | None = None) -> ExampleIndex:
        """Answers rated good, as examples for the generator (a companion collection, same client)."""
        chunks = self.index(collection)
        return ExampleIndex(self.index(chunks.collection + EXAMPLES_SUFFIX), self.embedder)

    def lexical(self, collection: str | None = None, *, meta: dict[str, Any] | None = None) -> LexicalIndex:
        """The collection's BM25, kept in the store beside its vectors. Raises ``CollectionOutdated``
        (with what to run) for a collection an earlier version made without the term weights, or
        with another tokenizer's. ``meta``: the collection's metadata when the caller has just read it."""
        lexical = LexicalIndex(self.index(collection), self.tokenizer)
        lexical.params(meta)
        return lexical

    def corpus(self, collection: str | None = None, *, version: int | None = None) -> Corpus:
        """The collection as a whole, as the query path asks about it (``components.stores.corpus``),
        read from the store: nothing is rebuilt after a write. ``version``: the store's version when
        the caller has just read it."""
        return self._store_corpus(collection, version=version)

    def corpus_of(self, collections: Sequence[str]) -> Corpus:
        """The collections a run reads, as one corpus: the collection's own for one, their merge for
        several (``MergedCorpus``: the idf of their summed statistics, the union of the rest)."""
        names = list(dict.fromkeys(collections))
        if len(names) <= 1:
            return self._store_corpus(names[0] if names else None)
        parts = [self._store_corpus(n) for n in names]
        key = tuple(names)
        with self._lock:
            merged = self._merged.get(key)
            # a part's corpus is a new object once its collection moved on: merge again then
            if merged is None or any(a is not b for a, b in zip(merged.parts, parts, strict=True)):
                merged = self._merged[key] = MergedCorpus(parts)
            return merged

    def _store_corpus(self, collection: str | None = None, *, version: int | None = None) -> StoreCorpus:
        index = self.index(collection)
        cached = self._corpora.get(index.collection)
        if cached is not None and version is not None and cached.version == version:
            return cached
        meta = index.metadata()
        current = int(meta.get("version", 0))
        if cached is not None and cached.version == current:
            return cached
        lexical = self.lexical(collection, meta=meta)
        with self._lock:
            corpus = open_store_corpus(lexical, self.terms_path(collection), version=current)
            self._corpora[index.collection] = corpus
            return corpus

    def terms_path(self, collection: str | None = None) -> Path:
        """Where the collection's term statistics are kept (``components.stores.termstats``)."""
        index = self.index(collection)
        return terms_path_for(self.settings.data_dir, index.collection, index.location)

    @property
    def breakers(self) -> Breakers:
        """Circuit breakers per external service, shared by every run in the process."""
        with self._lock:
            if self._breakers is None:
                self._breakers = breakers_from_settings(self.settings)
            return self._breakers

    @property
    def llm(self) -> ChatModels:
        """Chat models per role (Ollama); none configured means every node's non-LLM path."""
        with self._lock:
            if self._llm is None:
                from components.models.chat import ChatModels

                self._llm = ChatModels(self.settings, breakers=self.breakers, models=self._chat_models)
            return self._llm

    @property
    def web(self) -> WebSearch | None:
        """The web search provider, or None when WEB_SEARCH_PROVIDER is empty (the default)."""
        with self._lock:
            if self._web is None and self.settings.web_search_provider:
                self._web = make_web_search(self.settings)
            return self._web

    @property
    def cache(self) -> CacheBackend:
        """The semantic answer cache, shared by processes: under ``DATA_DIR/cache``, or in ``DATABASE_URL``."""
        with self._lock:
            if self._cache is None:
                folder = self.settings.data_dir / "cache"
                url = sqlalchemy_url(self.settings.database_url, folder / CACHE_FILE)
                self._cache = GPTCacheBackend(folder, url=url)
            return self._cache

    @property
    def feedback(self) -> FeedbackStore:
        """Users' verdicts on answers: SQLite under ``DATA_DIR`` unless ``DATABASE_URL`` names a database."""
        with self._lock:
            if self._feedback is None:
                self._feedback = FeedbackStore(sqlalchemy_url(self.settings.database_url, self._feedback_file))
            return self._feedback

    @property
    def _feedback_file(self) -> Path:
        return self.settings.data_dir / "feedback.sqlite"

    def may_hold_feedback(self) -> bool:
        """Whether a feedback store may hold verdicts, known without creating one: a database named
        by ``DATABASE_URL``, or the SQLite file once something was written to it."""
        return bool(self.settings.database_url) or self._feedback is not None or self._feedback_file.exists()

    @property
    def calibration(self) -> Calibration:
        """The embedding model's thresholds for the non-LLM paths (warns once if it has none)."""
        return calibration_for(self.embedder.model_id)

    @property
    def router(self) -> ExemplarRouter:
        """The embedding router (the non-LLM path of route_question)."""
        with self._lock:
            if self._router is None:
                self._router = ExemplarRouter(
                    self.embedder.encode_queries,
                    margin=self.calibration.route_margin,
                    min_score=self.calibration.route_min_score,
                    cache_dir=self.settings.data_dir / "cache",
                    model_id=self.embedder.model_id,
                )
            return self._router

    def known_values(self, collection: str | None = None, groups: Sequence[str] = ()) -> Known:
        """Vault names, tags and papers' authors of the chunks public or shared with ``groups`` (query
        analysis only trusts these, and the LLM is shown them: a tag only restricted notes carry is not)."""
        corpus = self.corpus(collection)
        scope = access_scope(corpus, groups)
        key = (collection or self.settings.collection, tuple(sorted(set(groups))) if scope else ())
        cached = self._known.get(key)
        if cached is not None and cached[0] == (corpus.version, corpus.size):
            return cached[1]
        known = Known(*(set(corpus.values(field, scope)) for field in ("vault", "tags", AUTHORS_KEY)))
        self._known[key] = ((corpus.version, corpus.size), known)
        return known

    def known_values_of(self, collections: Sequence[str], groups: Sequence[str] = ()) -> Known:
        """``known_values`` of several collections read together: the union of each one's."""
        each = [self.known_values(name, groups) for name in dict.fromkeys(collections) or [self.settings.collection]]
        return Known(*(set().union(*parts) for parts in zip(*each, strict=True)))

    def close(self) -> None:
        for idx in self._indexes.values():
            idx.close()
        self._indexes.clear()
        if self._cache is not None:
            self._cache.close()
            self._cache = None
        if self._feedback is not None:
            self._feedback.close()
            self._feedback = None


@functools.cache
def shared_components() -> Components:
    """The process's one set of components, for graphs loaded by module (``langgraph dev``).

    The ``rag`` and ``ingest`` graphs served by one process must share a Qdrant client: local
    mode locks its folder per client, so two would lock each other out (and load the model twice).
    """
    return Components()
