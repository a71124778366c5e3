"""Run-time settings: prompts edited per run are checked before the run starts."""

from __future__ import annotations

import pytest

from graph.context import Context
from nodes.rag import prompts


def test_defaults_are_the_prompts_module_and_count_as_unedited() -> None:
    ctx = Context()
    assert ctx.generate_prompt == prompts.GENERATE_SYSTEM and ctx.route_prompt == prompts.ROUTE_SYSTEM
    assert ctx.custom_prompts() == {}
    edited = Context(grade_context_prompt="Be strict.")
    assert edited.custom_prompts() == {"grade_context_prompt": "Be strict."}


def test_unknown_placeholder_is_named_with_the_ones_allowed() -> None:
    with pytest.raises(ValueError, match=r"generate_prompt uses unknown placeholder\(s\) \{langauge\}.*\{passages\}"):
        Context(generate_prompt="Answer in {langauge}: {passages}")


def test_passages_cannot_be_dropped_from_generation_or_the_check() -> None:
    with pytest.raises(ValueError, match=r"generate_prompt must contain \{passages\}"):
        Context(generate_prompt="Answer in {language_name}.")
    with pytest.raises(ValueError, match=r"hallucination_prompt must contain \{passages\}"):
        Context(hallucination_prompt="Is it grounded?")


def test_a_stray_brace_says_how_to_write_one() -> None:
    with pytest.raises(ValueError, match=r"literal brace"):
        Context(direct_prompt="Reply in {language_name} {")


def test_prompts_without_placeholders_are_verbatim() -> None:
    assert Context(route_prompt='Reply as JSON like {"route": ...}').route_prompt.startswith("Reply as JSON")


def test_retrievers_are_one_or_both_and_a_json_list_is_accepted() -> None:
    assert Context().retrievers == ("dense", "bm25")
    assert Context(retrievers=["bm25"]).retrievers == ("bm25",)  # type: ignore[arg-type]  # Studio sends JSON
    for bad in ((), ("dense", "splade")):
        with pytest.raises(ValueError, match="retrievers must be one or both of dense, bm25"):
            Context(retrievers=bad)
