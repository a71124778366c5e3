"""Search filters: what a user may write, the Qdrant condition and the payload test it becomes, and the
message a malformed filter gets."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from qdrant_client import models

from components.ingestion.documents import Chunk, Document
from components.resilience.errors import QueryError
from components.retrieval.filters import SearchFilters
from components.stores.edge_models import filter_json
from components.stores.points import chunk_payload
from components.stores.server_client import client_filter


def payload(
    doc_id: str, source: str, *, text: str = "text", section: list[str] | None = None, **doc: Any
) -> dict[str, Any]:
    """A chunk payload exactly as ingestion stores it (``chunk_payload``)."""
    d = Document(doc_id=doc_id, text=text, source=source, title=doc_id, format=doc.pop("format", "markdown"), **doc)
    return chunk_payload(Chunk(d, 0, text, section or [], f"{doc_id}#/", 0, len(text), 1), "hash")


CORPUS = [
    payload(
        "miso",
        "notes/レシピ/味噌汁.md",
        text="味噌は火を止めてから溶き入れます。",
        section=["味噌汁", "出汁"],
        vault="life",
        tags=["料理", "和食"],
        created="2024-02-11",
    ),
    payload(
        "curry",
        "notes/レシピ/curry.md",
        text="Add the roux last.",
        section=["Curry"],
        vault="life",
        tags=["料理"],
        created="2023-12-31",
    ),
    payload(
        "rrf",
        "research/fusion/rrf.md",
        text="RRF fuses rankings by rank.",
        section=["RRF"],
        vault="research",
        tags=["rag", "hybrid-search"],
        created="2024-12-31T23:00:00",
    ),
    payload(
        "paper",
        "https://ex.com/docs/paper",
        text="A journal article.",
        format="jsonl",
        metadata={"journal": "Nature", "year": 2021, "authors": ["Sato", "Lee"], "peer_reviewed": True},
    ),
    payload("notes2", "notes2/a.md", text="A folder whose name starts like notes.", vault="life", created="2025-01-01"),
]


def matching(raw: dict[str, Any]) -> list[str]:
    f = SearchFilters.parse(raw)
    return sorted(p["doc_id"] for p in CORPUS if f.matches(p))


def utc(y: int, m: int, d: int) -> float:
    return datetime(y, m, d, tzinfo=UTC).timestamp()


# ------------------------------------------------------------------ no filter


@pytest.mark.parametrize("raw", [None, {}, SearchFilters()])
def test_no_filter_restricts_nothing(raw: Any) -> None:
    f = SearchFilters.parse(raw)
    assert f.is_empty() and f.conditions() == []
    assert f.to_qdrant() is None  # Qdrant is asked without a filter, not with an empty one
    assert all(f.matches(p) for p in CORPUS)


def test_a_parsed_filter_is_returned_as_is() -> None:
    f = SearchFilters(tags=["rag"])
    assert SearchFilters.parse(f) is f


# ------------------------------------------------------------------ what Qdrant is sent


def match(key: str, value: Any) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def match_any(key: str, values: list[Any]) -> models.FieldCondition:
    return models.FieldCondition(key=key, match=models.MatchAny(any=values))


@pytest.mark.parametrize(
    ("raw", "must"),
    [
        ({"vaults": ["life"]}, [match("vault", "life")]),
        ({"vaults": ["life", "research"]}, [match_any("vault", ["life", "research"])]),
        # tags: all of them, each its own condition; a leading # and spaces are what users type, not the tag
        ({"tags": ["#料理", " 和食 "]}, [match("tags", "料理"), match("tags", "和食")]),
        (
            {"created_from": "2024-01-01", "created_to": "2024-01-31"},
            [
                models.FieldCondition(
                    key="created_ts", range=models.Range(gte=utc(2024, 1, 1), lte=utc(2024, 2, 1) - 1e-3)
                )
            ],
        ),
        (
            {"created_from": "2024-01-01"},
            [models.FieldCondition(key="created_ts", range=models.Range(gte=utc(2024, 1, 1)))],
        ),
        ({"source": "notes/レシピ/味噌汁.md"}, [match("source", "notes/レシピ/味噌汁.md")]),
        # a prefix matches whole path segments: the trailing slash is dropped, the stored prefixes have none
        ({"source_prefix": "notes/レシピ/"}, [match("source_prefixes", "notes/レシピ")]),
        ({"source_prefix": "https://ex.com/docs/"}, [match("source_prefixes", "https://ex.com/docs")]),
        ({"section": "出汁"}, [match("section_hierarchy", "出汁")]),
        ({"language": "ja"}, [match("language", "ja")]),
        ({"doc_ids": ["miso", "rrf"]}, [match_any("doc_id", ["miso", "rrf"])]),
        ({"where": [{"key": "metadata.journal", "value": "Nature"}]}, [match("metadata.journal", "Nature")]),
        ({"where": [{"key": "format", "op": "in", "value": ["jsonl"]}]}, [match_any("format", ["jsonl"])]),
        (
            {"where": [{"key": "text", "op": "contains", "value": "火を止めて"}]},
            [models.FieldCondition(key="text", match=models.MatchSubstring(substring="火を止めて"))],
        ),
        (
            {"where": [{"key": "metadata.year", "op": "range", "gte": 2020, "lt": 2022}]},
            [models.FieldCondition(key="metadata.year", range=models.Range(gte=2020.0, lt=2022.0))],
        ),
        (
            {"where": [{"key": "created", "op": "range", "gte": "2024-02-01"}]},
            [models.FieldCondition(key="created", range=models.DatetimeRange(gte=datetime(2024, 2, 1, tzinfo=UTC)))],
        ),
    ],
    ids=lambda x: None if isinstance(x, list) else ",".join(x),
)
def test_each_filter_becomes_its_qdrant_condition(raw: dict[str, Any], must: list[Any]) -> None:
    # the store's filter (Edge's types) is the expected Qdrant condition: as a server is sent it, and
    # as Qdrant's REST API writes it (what --debug shows)
    q = SearchFilters.parse(raw).to_qdrant()
    assert q is not None
    assert client_filter(q) == models.Filter(must=must)
    assert filter_json(q) == models.Filter(must=must).model_dump(mode="json", exclude_none=True)


def test_all_given_filters_must_hold() -> None:
    raw = {"vaults": ["life"], "tags": ["料理"], "language": "ja"}
    q = client_filter(SearchFilters.parse(raw).to_qdrant())
    assert q is not None and q.should is None and q.must_not is None
    assert q.must == [match("vault", "life"), match("tags", "料理"), match("language", "ja")]
    assert matching(raw) == ["miso"]


# ------------------------------------------------------------------ which chunks the BM25 side admits


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"vaults": ["life"]}, ["curry", "miso", "notes2"]),
        ({"vaults": ["life", "research"]}, ["curry", "miso", "notes2", "rrf"]),
        ({"tags": ["料理"]}, ["curry", "miso"]),
        ({"tags": ["料理", "和食"]}, ["miso"]),  # all of the tags, not any
        ({"tags": ["#料理"]}, ["curry", "miso"]),
        ({"tags": ["料"]}, []),  # a tag is matched whole
        ({"any_tags": ["和食", "rag"]}, ["miso", "rrf"]),  # any of them ("tagged X or Y")
        ({"any_tags": ["#料理", "gone"]}, ["curry", "miso"]),
        # both ends of a date range are whole days, inclusive; notes without a date never match
        ({"created_from": "2024-01-01", "created_to": "2024-12-31"}, ["miso", "rrf"]),
        ({"created_from": "2024-02-11", "created_to": "2024-02-11"}, ["miso"]),
        ({"created_to": "2023-12-31"}, ["curry"]),
        ({"created_from": "2025-01-01"}, ["notes2"]),
        ({"source": "notes/レシピ/curry.md"}, ["curry"]),
        ({"source": "notes/レシピ"}, []),  # source is exact; a folder needs source_prefix
        ({"source_prefix": "notes"}, ["curry", "miso"]),  # not notes2/: segments, not characters
        ({"source_prefix": "notes/レシピ/"}, ["curry", "miso"]),
        ({"source_prefix": "notes/レシ"}, []),
        ({"source_prefix": "https://ex.com/docs"}, ["paper"]),
        ({"source_prefix": "research/fusion/rrf.md"}, ["rrf"]),  # a whole path is its own prefix
        ({"section": "出汁"}, ["miso"]),  # any heading on the chunk's path
        ({"section": "味噌汁"}, ["miso"]),
        ({"language": "ja"}, ["miso"]),
        ({"language": "en"}, ["curry", "notes2", "paper", "rrf"]),
        ({"doc_ids": ["rrf", "paper", "gone"]}, ["paper", "rrf"]),
        ({"where": [{"key": "metadata.journal", "value": "Nature"}]}, ["paper"]),
        ({"where": [{"key": "metadata.authors", "value": "Lee"}]}, ["paper"]),  # eq on a list: any element
        ({"where": [{"key": "tags", "op": "in", "value": ["rag", "和食"]}]}, ["miso", "rrf"]),
        ({"where": [{"key": "text", "op": "contains", "value": "火を止めて"}]}, ["miso"]),
        ({"where": [{"key": "text", "op": "contains", "value": "rrf"}]}, []),  # case-sensitive
        # on a list field, as Qdrant does: a substring of any element (was: never, on the BM25 side only)
        ({"where": [{"key": "tags", "op": "contains", "value": "search"}]}, ["rrf"]),
        ({"where": [{"key": "section_hierarchy", "op": "contains", "value": "出"}]}, ["miso"]),
        ({"where": [{"key": "metadata.year", "op": "range", "gte": 2021, "lte": 2021}]}, ["paper"]),
        ({"where": [{"key": "metadata.year", "op": "range", "gt": 2021}]}, []),
        ({"where": [{"key": "metadata.peer_reviewed", "op": "range", "gte": 0}]}, []),  # a bool is no number
        ({"where": [{"key": "created", "op": "range", "gte": "2024-02-11", "lt": "2025-01-01"}]}, ["miso", "rrf"]),
        ({"where": [{"key": "metadata.nothing", "value": "x"}]}, []),
    ],
    ids=lambda x: None if isinstance(x, list) else repr(x),
)
def test_each_filter_admits_the_chunks_it_names(raw: dict[str, Any], expected: list[str]) -> None:
    assert matching(raw) == expected


def test_conditions_are_labelled_for_the_message_that_explains_an_empty_result() -> None:
    f = SearchFilters.parse(
        {
            "vaults": ["life"],
            "tags": ["料理"],
            "created_from": "2024-01-01",
            "source_prefix": "notes/",
            "where": [{"key": "metadata.year", "op": "range", "gte": 2020}],
        }
    )
    assert [c.label for c in f.conditions()] == [
        "vault in ['life']",
        "tag '料理'",
        "created 2024-01-01..…",
        "source starts with 'notes/'",
        "metadata.year gte 2020.0",
    ]


# ------------------------------------------------------------------ malformed filters


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"tag": ["rag"]}, "tag: Extra inputs are not permitted"),
        ({"tags": "rag"}, "tags: Input should be a valid list (got 'rag')"),
        ({"tags": []}, "tags: Value error, empty value in list filter"),
        ({"tags": ["rag", " # "]}, "tags: Value error, empty value in list filter"),
        ({"vaults": [""]}, "vaults: Value error, empty value in list filter"),
        ({"created_from": "2024年3月1日"}, "created_from: Input should be a valid date"),
        ({"created_to": "2024-02-30"}, "created_to: Input should be a valid date"),
        (
            {"created_from": "2024-05-01", "created_to": "2024-04-01"},
            "created_from 2024-05-01 is after created_to 2024-04-01",
        ),
        ({"where": [{"key": " ", "value": 1}]}, "where.0: Value error, filter key is empty"),
        ({"where": [{"key": "format", "op": "like", "value": "x"}]}, "where.0.op: Input should be 'eq', 'in'"),
        ({"where": [{"key": "format"}]}, "`eq` filter on 'format' needs a value"),
        ({"where": [{"key": "text", "op": "contains"}]}, "`contains` filter on 'text' needs a value"),
        ({"where": [{"key": "format", "op": "in", "value": "md"}]}, "`in` filter on 'format' needs a non-empty list"),
        ({"where": [{"key": "format", "op": "in", "value": []}]}, "`in` filter on 'format' needs a non-empty list"),
        ({"where": [{"key": "year", "op": "range"}]}, "range filter on 'year' needs gte, lte, gt or lt"),
        (
            {"where": [{"key": "created", "op": "range", "gte": "last week"}]},
            "range bound 'last week' on 'created' is neither a number nor an ISO date",
        ),
        ({"where": [{"key": "year", "value": 1, "regex": "x"}]}, "where.0.regex: Extra inputs are not permitted"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_a_malformed_filter_is_refused_with_a_message_naming_the_problem(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(QueryError) as e:
        SearchFilters.parse(raw)
    text = str(e.value)
    assert text.startswith("Invalid filters: ")
    assert message in text
    allowed = (
        "vaults, tags, any_tags, authors, created_from, created_to, source, source_prefix, section, language, doc_ids, "
        "chunk_types, where"
    )
    assert text.endswith(f"Allowed keys: {allowed}.")


def test_the_error_names_every_problem_at_once() -> None:
    with pytest.raises(QueryError) as e:
        SearchFilters.parse({"vault": ["life"], "created_to": "yesterday"})
    assert "vault: Extra inputs are not permitted" in str(e.value)
    assert "created_to: Input should be a valid date" in str(e.value)


def test_a_range_mixing_a_date_and_a_number_is_refused_up_front() -> None:
    # was accepted, then failed with a bare TypeError ("not a date: 5.0") when the search built its filter
    with pytest.raises(QueryError, match="range filter on 'created' mixes ISO dates and numbers"):
        SearchFilters.parse({"where": [{"key": "created", "op": "range", "gte": "2024-01-01", "lte": 5}]})
