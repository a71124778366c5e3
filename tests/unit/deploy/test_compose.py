"""deploy/compose.yaml: parses, and points the API server at the services it starts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from components.settings import Settings

COMPOSE = Path(__file__).parents[3] / "deploy" / "compose.yaml"
EXAMPLE = COMPOSE.with_name(".env.example")
#: variables other software reads: the LangGraph API server, and Hugging Face's offline switch
NOT_OURS = {"DATABASE_URI", "REDIS_URI", "LANGSMITH_API_KEY", "LANGGRAPH_CLOUD_LICENSE_KEY", "HF_HUB_OFFLINE"}


def test_the_api_server_reaches_qdrant_ollama_postgres_and_redis_by_service_name() -> None:
    spec = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services = spec["services"]
    assert {"qdrant", "ollama", "redis", "postgres", "api"} <= set(services)
    env = services["api"]["environment"]
    assert env["QDRANT_URL"] == "http://qdrant:6333" and env["OLLAMA_BASE_URL"] == "http://ollama:11434"
    assert "@postgres:5432/" in env["DATABASE_URI"] and env["REDIS_URI"] == "redis://redis:6379"
    assert env["DATABASE_URL"].startswith("postgresql://") and "@postgres:5432/" in env["DATABASE_URL"]
    assert set(services["api"]["depends_on"]) == {"qdrant", "redis", "postgres"}
    # every other variable is a setting this project reads (a typo would be silently ignored)
    assert {k for k in env if k not in NOT_OURS} <= {name.upper() for name in Settings.model_fields}


def test_the_env_example_names_every_variable_the_file_requires() -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    example = {line.split("=", 1)[0] for line in EXAMPLE.read_text(encoding="utf-8").splitlines() if "=" in line}
    for name in ("QDRANT_API_KEY", "POSTGRES_PASSWORD", "LLM_MODEL", "NOTES_DIR", "QDRANT_SHARDS", "AUTH_TOKENS_FILE"):
        assert "${" + name in text and name in example


def test_the_api_server_refuses_to_start_without_a_credential(monkeypatch: Any) -> None:
    env = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))["services"]["api"]["environment"]
    assert env["AUTH_REQUIRED"] == "true"
    from graph import auth

    # what the container gets with the .env's credentials left empty
    for name in ("AUTH_TOKENS_FILE", "AUTH_JWT_SECRET", "AUTH_JWT_PUBLIC_KEY"):
        monkeypatch.setenv(name, "")
    monkeypatch.setenv("AUTH_REQUIRED", "true")
    monkeypatch.setattr(auth, "get_settings", lambda: Settings(_env_file=None))  # type: ignore[call-arg]
    auth.credentials.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="AUTH_REQUIRED is set and no credential is configured"):
            auth.credentials()
    finally:
        auth.credentials.cache_clear()
