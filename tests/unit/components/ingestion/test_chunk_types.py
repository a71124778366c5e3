import pytest

from components.ingestion.chunk_types import CHUNK_TYPES, chunk_type
from components.ingestion.chunker import chunk_document
from components.ingestion.documents import Document


@pytest.mark.parametrize(
    ("text", "hierarchy", "expected"),
    [
        ("```python\nimport os\nprint(os.getcwd())\n```", ["Setup"], "code"),
        ("Run this:\n```\npip install rag\nrag ingest ~/notes\n```\nthen search.", ["Setup"], "code"),
        (
            "Install it with pip, then ingest the vault you keep your notes in:\n```\npip install rag\n```",
            ["Setup"],
            "body",
        ),
        ("| k1 | b |\n|---|---|\n| 1.2 | 0.75 |", ["Parameters"], "table"),
        ("We show that hybrid retrieval helps.", ["Abstract"], "abstract"),
        ("ハイブリッド検索の効果を示す。", ["要旨"], "abstract"),
        ("Abstract: we compare BM25 and dense vectors.", ["p. 1"], "abstract"),
        ("Dense retrieval\nJane Smith\nAbstract\nWe compare BM25 and dense.", ["p. 1"], "abstract"),
        ("Abstract thinking is covered later.", ["p. 3"], "body"),
        ("k1 is usually 1.2 and b is 0.75.", ["Parameters"], "body"),
        ("Monstera Care", [], "heading"),
    ],
)
def test_chunk_types(text: str, hierarchy: list[str], expected: str) -> None:
    assert chunk_type(text, hierarchy, title="Monstera Care") == expected
    assert expected in CHUNK_TYPES


def test_chunker_records_each_chunks_type() -> None:
    doc = Document(
        doc_id="d",
        text="## Abstract\nWe study BM25.\n## Setup\n```\npip install x\n```\n"
        "## Results\n| a | b |\n|---|---|\n| 1 | 2 |\n## Discussion\nIt works well.",
        source="d.md",
        title="Paper",
        format="md",
    )
    assert [c.chunk_type for c in chunk_document(doc)] == ["abstract", "code", "table", "body"]


def test_a_paragraph_with_a_small_table_stays_body_text() -> None:
    text = (
        "**Water only when the top 5 cm of soil is dry.** Push a finger in up to the second knuckle; if it feels "
        "even slightly damp, wait. When it is time, water thoroughly until water runs out of the drainage holes.\n"
        "In practice that works out to roughly:\n| Season | Interval |\n|---|---|\n| Summer | 7 days |\n"
        "| Winter | 3 weeks |\nOverwatering is the easiest way to kill a monstera."
    )
    assert chunk_type(text, ["Watering rule"]) == "body"
