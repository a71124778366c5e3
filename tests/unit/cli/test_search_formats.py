"""Search formats: per document when grouped, documents' metadata where readers expect it."""

from __future__ import annotations

from typing import Any

import pytest

from cli.search_formats import FORMATS, citation, render


def chunk(rank: int, doc: str, title: str, section: list[str], **meta: Any) -> dict[str, Any]:
    return {
        "rank": rank,
        "score": 0.9 - rank / 100,
        "chunk_id": f"{doc}#{rank}",
        "doc_id": doc,
        "text": f"text of chunk {rank}",
        "source": f"/notes/{title}.md",
        "title": title,
        "section_hierarchy": section,
        "chunk": "1 of 3",
        "tags": [],
        "created": "2025-10-18",
        "metadata": meta,
        "ranks": {"dense": rank},
        "retriever_scores": {"dense": 0.85},
    }


PAPER = {
    "authors": ["Karpukhin, V.", "Oguz, B.", "Yih, W."],
    "year": 2020,
    "journal": "EMNLP",
    "doi": "10.18653/v1/2020.emnlp-main.550",
}


def report(results: list[dict[str, Any]]) -> dict[str, Any]:
    return {"query": "dense retrieval", "results": results, "timings_ms": {"total": 1234.0}, "warnings": []}


def grouped() -> list[dict[str, Any]]:
    a = [
        chunk(1, "dpr", "Dense Passage Retrieval", ["Method"], **PAPER),
        chunk(3, "dpr", "Dense Passage Retrieval", ["Results"], **PAPER),
    ]
    b = [chunk(2, "note", "ベクトル検索", ["HNSW"])]
    return [document(1, a), document(2, b)]


def document(rank: int, chunks: list[dict[str, Any]]) -> dict[str, Any]:
    first = chunks[0]
    keys = ("doc_id", "score", "title", "source")
    return {"rank": rank, **{k: first[k] for k in keys}, "chunks": chunks}


def test_a_paper_is_cited_apa_like_and_a_note_by_title_section_path_and_date() -> None:
    paper = citation(chunk(1, "dpr", "Dense Passage Retrieval", ["Method"], **PAPER))
    assert paper == (
        "Karpukhin, V., Oguz, B., & Yih, W. (2020). Dense Passage Retrieval. *EMNLP*. "
        "https://doi.org/10.18653/v1/2020.emnlp-main.550"
    )
    assert (
        citation(chunk(2, "n", "ベクトル検索", ["HNSW"])) == "ベクトル検索 — HNSW. /notes/ベクトル検索.md, 2025-10-18"
    )


def test_citations_list_each_document_once_in_rank_order() -> None:
    out = render(report(grouped()), "citations").splitlines()
    assert len(out) == 2 and out[0].startswith("[1] Karpukhin") and out[1].startswith("[2] ベクトル検索")


def test_markdown_has_the_count_and_time_and_groups_by_document() -> None:
    out = render(report(grouped()), "markdown")
    assert out.startswith("## Search: dense retrieval\n\n2 documents · 1.23 s\n")
    assert out.count("### ") == 2 and "> **Method** — text of chunk 1" in out and "> **Results**" in out
    assert "Karpukhin, V., Oguz, B., & Yih, W. · 2020 · EMNLP · https://doi.org/" in out


def test_brief_is_one_line_per_result_or_per_document() -> None:
    assert render(report(grouped()), "brief").splitlines() == [
        "  1. 0.890  Dense Passage Retrieval [Karpukhin et al., 2020] (2 chunks: Method, Results)",
        "  2. 0.880  ベクトル検索 (1 chunk: HNSW)",
    ]
    flat = [c for g in grouped() for c in g["chunks"]]
    assert len(render(report(flat), "brief").splitlines()) == 3


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_says_when_nothing_was_found_and_shows_warnings(fmt: str) -> None:
    empty = {**report([]), "warnings": ["Nothing in the index looks relevant"]}
    out = render(empty, fmt)
    assert "Nothing in the index looks relevant" in out
    assert fmt == "json" or "No results." in out


def test_authors_are_cited_family_name_first_with_initials() -> None:
    two = citation(chunk(1, "p", "Sparse", [], authors=["Jane Q. Smith", "Ken Sato"], year=2021))
    assert two.startswith("Smith, J. Q., & Sato, K. (2021). Sparse.")
    assert citation(chunk(1, "p", "検索", [], authors="山田太郎", year=2024)).startswith("山田太郎 (2024). 検索.")


def test_a_record_without_sections_shows_none_and_a_paper_its_authors_year_and_collections() -> None:
    abstract = chunk(1, "p", "Sparse retrieval", [], authors=["Jane Q. Smith", "Ken Sato"], year=2021,
                     collections=["ir", "nlp"], item_type="preprint")  # fmt: skip
    for fmt in ("text", "markdown", "brief", "citations"):
        assert "unknown" not in render(report([abstract]), fmt), fmt
    assert render(report([abstract]), "brief").splitlines() == ["  1. 0.890  Sparse retrieval [Smith & Sato, 2021]"]
    markdown = render(report([abstract]), "markdown")
    assert "### 1. Sparse retrieval (score 0.890)" in markdown
    assert "Smith, J. Q., & Sato, K. · 2021 · preprint · collections: ir, nlp" in markdown
    note = chunk(2, "n", "ベクトル検索", [])
    assert citation(note) == "ベクトル検索. /notes/ベクトル検索.md, 2025-10-18"
