import itertools

from components.ingestion.chunker import chunk_document, chunk_section, split_sections
from components.ingestion.documents import Document


def doc(text: str, **kw: object) -> Document:
    return Document(doc_id="d", text=text, source="s.md", title="T", format="markdown", **kw)  # type: ignore[arg-type]


def test_sections_follow_heading_hierarchy_and_ignore_code_fences() -> None:
    text = "intro\n# A\na text\n## B\nb text\n```\n# not a heading\n```\n## C\nc\n# D\nd"
    secs = split_sections(text)
    assert [s.hierarchy for s in secs] == [[], ["A"], ["A", "B"], ["A", "C"], ["D"]]
    assert "# not a heading" in secs[2].text


def test_chunks_respect_size_and_cut_at_sentence_ends() -> None:
    sentence = "日本語の文はここで終わる。"
    text = sentence * 100
    spans = chunk_section(text, size=200, overlap=40)
    assert len(spans) > 5
    for start, end in spans:
        assert end - start <= 200
        assert text[start:end].endswith("。")
    # consecutive chunks overlap by whole sentences, and together cover the text
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(b[0] < a[1] for a, b in itertools.pairwise(spans))


def test_overlong_sentence_is_cut_hard_within_size() -> None:
    spans = chunk_section("x" * 1000, size=300, overlap=0)
    assert [e - s for s, e in spans] == [300, 300, 300, 100]


def test_chunk_document_numbers_chunks_and_records_parents() -> None:
    d = doc("# Setup\n" + "Install it. " * 100 + "\n# Use\nRun it.")
    chunks = chunk_document(d, size=300, overlap=50)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    assert all(c.total == len(chunks) for c in chunks)
    assert chunks[0].section_hierarchy == ["Setup"] and chunks[-1].section_hierarchy == ["Use"]
    assert chunks[0].parent_id == "d#/Setup" and chunks[-1].parent_id == "d#/Use"
    assert chunks[-1].search_text.startswith("T > Use\n")


def test_pdf_pages_are_sections() -> None:
    d = doc("a\n\nb", pages=[("p. 1", "First page."), ("p. 2", "Second page.")])
    assert [c.section_hierarchy for c in chunk_document(d)] == [["p. 1"], ["p. 2"]]


def test_aliases_join_the_title_in_what_is_embedded_and_what_bm25_indexes() -> None:
    from components.stores.lexical import search_text
    from components.stores.points import chunk_payload

    doc = Document(
        doc_id="m",
        text="## Watering rule\nWater only when the top 5 cm of soil is dry.",
        source="m.md",
        title="Monstera Care",
        format="md",
        aliases=["モンステラ", "Monstera deliciosa"],
    )
    (chunk,) = chunk_document(doc)
    assert chunk.search_text.startswith("Monstera Care (モンステラ, Monstera deliciosa) > Watering rule\n")
    assert search_text(chunk_payload(chunk, doc.content_hash)) == chunk.search_text


def test_text_without_sentence_ends_is_cut_between_words() -> None:
    lines = [f"2026-01-{i % 28 + 1:02d} worker {i} finished job {i * 7}" for i in range(400)]
    text = "\n".join(lines)  # a log: one "sentence", thousands of characters long
    spans = chunk_section(text, size=300, overlap=0)
    assert len(spans) > 10 and spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(e - s <= 300 for s, e in spans)
    assert all(text[e - 1] in " \n" for _, e in spans[:-1])
    assert all(a[1] == b[0] for a, b in itertools.pairwise(spans))
