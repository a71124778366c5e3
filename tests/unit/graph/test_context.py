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
    with pytest.raises(ValueError, match=r"generate_prompt uses unknown placeholder\(s\) \{langauge\}.*\{no_info\}"):
        Context(generate_prompt="Answer in {langauge}.")


@pytest.mark.parametrize("name", ["generate_prompt", "hallucination_prompt", "grade_context_prompt"])
def test_a_prompt_that_puts_the_passages_in_the_system_prompt_is_refused_with_where_they_go(name: str) -> None:
    # written for an earlier version: the passages would reach the model as instructions
    with pytest.raises(ValueError, match=rf"{name} contains \{{passages\}}: .*user message.*remove"):
        Context(**{name: "Use these passages:\n{passages}"})
    assert getattr(Context(**{name: "Be strict."}), name) == "Be strict."  # no passages needed: the node adds them


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
