"""A listing's rows: one per document, its own metadata, in the order the question implies."""

from __future__ import annotations

from components.retrieval.filters import SearchFilters
from components.retrieval.listing import conditions, documents_of, order

NOTE = {"source": "/home/me/vaults/life/recipes/Karaage.md", "vault": "life", "tags": ["料理"]}
CHUNKS = [
    {**NOTE, "doc_id": "karaage", "chunk_index": 2, "title": "Karaage (part)", "created": "2025-04-20"},
    {**NOTE, "doc_id": "karaage", "chunk_index": 0, "title": "Karaage", "created": "2025-04-20", "chunk_id": "k#0"},
    {"doc_id": "dpr", "title": "Dense Passage Retrieval", "source": "papers.jsonl", "chunk_index": 0,
     "metadata": {"authors": ["Karpukhin", "Oguz", "Min", "Lewis"], "year": 2020}},
    {"doc_id": "undated", "title": "Scratch", "source": "/home/me/vaults/life/Scratch.md", "vault": "life"},
    {"doc_id": "miso", "title": "味噌汁", "source": "/home/me/vaults/life/recipes/味噌汁.md", "created": "2024-02-11"},
]  # fmt: skip


def test_one_row_per_document_from_its_first_chunk_with_the_path_inside_its_vault() -> None:
    rows = {d.doc_id: d for d in documents_of(CHUNKS)}
    assert len(rows) == 4
    assert (rows["karaage"].title, rows["karaage"].chunk_id) == ("Karaage", "k#0")
    assert rows["karaage"].place == "life/recipes/Karaage.md" and rows["karaage"].tags == ("料理",)
    assert rows["dpr"].authors[:2] == ("Karpukhin", "Oguz") and rows["dpr"].when == "2020"
    assert rows["miso"].place == "/home/me/vaults/life/recipes/味噌汁.md"  # no vault known: the source as stored


def test_newest_first_unless_a_period_is_named_and_undated_documents_last() -> None:
    rows = documents_of(CHUNKS)
    none = SearchFilters()
    newest, how = order(rows, "Which notes are tagged 料理?", none)
    assert [d.doc_id for d in newest] == ["karaage", "miso", "dpr", "undated"] and how == "newest"
    period = SearchFilters.parse({"created_from": "2020-01-01", "created_to": "2025-12-31"})
    oldest, how = order(rows, "notes from 2020 to 2025", period)
    assert [d.doc_id for d in oldest] == ["dpr", "miso", "karaage", "undated"] and how == "oldest"
    assert order(rows, "my most recent notes from 2020 to 2025", period)[1] == "newest"


def test_the_conditions_are_worded_and_the_access_scope_never_is() -> None:
    labels = {
        "tags": "tags {values}",
        "vaults": "vault {values}",
        "created_between": "{start}..{end}",
        "created_from": "from {start}",
        "created_to": "until {end}",
    }
    f = SearchFilters.parse({"tags": ["料理"], "created_from": "2025-01-01", "source_prefix": "/home"}).within(["hr"])
    worded = conditions(f, labels)
    assert worded == ["tags #料理", "from 2025-01-01", "source starts with '/home'"]
    assert not any("hr" in w or "access" in w for w in worded)
