"""Recognise NeMo Guardrails' self-check input prompt, so the fakes can answer it apart.

With an LLM configured, every Q&A run starts with NeMo's self-check of the question
(guardrails/config/self_check). The fakes answer it with a settable verdict ("No": not blocked)
instead of consuming a scripted reply, and keep it out of the model calls a test counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: the question that ends the project's self-check prompt (guardrails/config/self_check/config.yml)
MARK = "Should the message be blocked (Yes or No)?"


def is_self_check(texts: Iterable[object]) -> bool:
    """Whether any of the message texts is the self-check prompt."""
    return any(isinstance(t, str) and MARK in t for t in texts)


def payload_is_self_check(payload: dict[str, Any]) -> bool:
    """The same test on an Ollama or OpenAI chat request body."""
    return is_self_check(m.get("content") for m in payload.get("messages", []) if isinstance(m, dict))
