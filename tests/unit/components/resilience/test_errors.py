"""A QueryError leaving a graph's node keeps its type and words and is a ValueError too (what the
LangGraph server shows its client); raised anywhere else it is not (pydantic passes it through)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, field_validator

from components.resilience.errors import QueryError, UnknownDocument, for_the_caller


def test_the_callers_copy_keeps_type_and_message_and_is_a_value_error() -> None:
    told = for_the_caller(UnknownDocument("notes/x.md", "rag"))
    assert isinstance(told, UnknownDocument) and isinstance(told, ValueError)
    assert str(told) == str(UnknownDocument("notes/x.md", "rag")) and type(told).__name__ == "UnknownDocument"
    assert for_the_caller(told) is told
    assert type(for_the_caller(QueryError("a"))) is type(for_the_caller(QueryError("b")))  # one class per type


def test_a_query_error_in_a_validator_still_passes_through_pydantic() -> None:
    class Model(BaseModel):
        x: str

        @field_validator("x")
        @classmethod
        def _refuse(cls, v: str) -> str:
            raise QueryError("refused as it is")

    with pytest.raises(QueryError, match="refused as it is"):
        Model(x="y")
