"""`rag status` asks Ollama for its version with the standard library, and says why when it cannot."""

from __future__ import annotations

from cli.status_cmd import ollama_state
from tests.fakes.ollama_server import ollama_server


def test_a_running_ollama_is_reachable_with_its_version() -> None:
    with ollama_server() as (url, _):
        state = ollama_state(url)
    assert state["reachable"] is True and state["version"]


def test_a_failing_or_absent_ollama_is_unreachable_with_the_reason() -> None:
    with ollama_server() as (url, behaviour):
        behaviour.fail_next = 1
        failing = ollama_state(url)
    absent = ollama_state(url, timeout=1.0)  # the server has stopped: the port refuses
    assert failing["reachable"] is False and "HTTPError" in failing["error"]
    assert absent["reachable"] is False and "refused" in absent["error"].lower()
