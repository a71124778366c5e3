"""deploy/compose.yaml: parses, and points the API server at the services it starts."""

from __future__ import annotations

from pathlib import Path

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
    for name in ("QDRANT_API_KEY", "POSTGRES_PASSWORD", "LLM_MODEL", "NOTES_DIR", "QDRANT_SHARDS"):
        assert "${" + name in text and name in example
