"""The nostream tag that chat.py writes out must stay LangGraph's, or grader JSON would stream as answer tokens."""

from __future__ import annotations

from langgraph.constants import TAG_NOSTREAM as LANGGRAPH_TAG_NOSTREAM

from components.models.chat import TAG_NOSTREAM


def test_the_local_tag_is_langgraphs() -> None:
    assert TAG_NOSTREAM == LANGGRAPH_TAG_NOSTREAM
