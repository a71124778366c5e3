"""Structured outputs of the LLM nodes, as Pydantic models (sent to Ollama as a JSON schema).

Field descriptions are part of the schema the model sees, so they say what to put there.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class ExtractedFilters(BaseModel):
    """Metadata conditions stated in the question."""

    tags: list[str] = Field(default_factory=list, description="Tags the question names (without '#'); empty if none.")
    vaults: list[str] = Field(
        default_factory=list, description="Vault names from the known list that the question names; empty if none."
    )
    created_from: str | None = Field(default=None, description="Earliest creation date asked for, YYYY-MM-DD, or null.")
    created_to: str | None = Field(default=None, description="Latest creation date asked for, YYYY-MM-DD, or null.")


class RouteDecision(BaseModel):
    """Where the question should go."""

    route: Literal["vector_search", "metadata_search", "web_search", "direct_answer"] = Field(
        description="vector_search: about the user's documents or knowledge; metadata_search: asks only which "
        "documents meet conditions (a tag, a vault, a date or period) with no topic; web_search: recent or "
        "outside events; direct_answer: greetings, chit-chat, general questions needing no documents."
    )
    reason: str = Field(default="", description="One short sentence saying why.")


class Rewrite(BaseModel):
    """A standalone search query and, optionally, a hypothetical answer passage."""

    question: str = Field(description="The question rewritten to stand alone, in the question's language.")
    hypothetical_answer: str = Field(
        default="",
        description="A short passage (2-4 sentences) that would answer the question, as found in a document.",
    )
    translation: str = Field(
        default="",
        description="The standalone question in the notes' other language (Japanese or English) when asked for; "
        "else empty.",
    )


class ContextGrade(BaseModel):
    """Which numbered passages help answer the question."""

    relevant: list[int] = Field(
        default_factory=list, description="Numbers of the passages that contain information answering the question."
    )
    reason: str = Field(default="", description="One short sentence.")


class HallucinationGrade(BaseModel):
    """Whether the answer is supported by the passages."""

    grounded: bool = Field(description="True when every statement of the answer is supported by the passages.")
    unsupported: list[str] = Field(
        default_factory=list, description="Statements of the answer that the passages do not support."
    )


class AnswerGrade(BaseModel):
    """Whether the answer resolves the question."""

    useful: bool = Field(description="True when the answer addresses and resolves the question.")
    reason: str = Field(default="", description="One short sentence.")
