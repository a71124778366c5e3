"""Shared fixtures: every test runs offline against a fresh embedded store in a temp folder."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

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
