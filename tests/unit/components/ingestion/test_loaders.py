from pathlib import Path

import pytest

from components.ingestion.loaders import discover, find_vault, load_file
from components.ingestion.loaders.notes import parse_markdown
from components.ingestion.loaders.source import SourceFile
from components.resilience.errors import IndexingError


def test_frontmatter_tags_links_and_dates() -> None:
    text = (
        "---\ntitle: 味噌汁の作り方\ntags: [料理, 和食]\ncreated: 2024-02-11\naliases: [miso]\nsource_url: x\n---\n"
        "# 味噌汁\nだしは[[だしの取り方]]を参照。[[親子丼|丼もの]]も。 #レシピ #cooking/japanese\n"
        "```\n#not-a-tag\n```\n"
    )
    p = parse_markdown(text, fallback_title="f")
    assert p["title"] == "味噌汁の作り方"
    assert p["tags"] == ["料理", "和食", "レシピ", "cooking/japanese"]
    assert p["created"] == "2024-02-11"
    assert p["aliases"] == ["miso"]
    assert "だしの取り方を参照" in p["body"] and "丼ものも" in p["body"]
    assert "[[" not in p["body"]
    assert p["links"] == ["だしの取り方", "親子丼"]
    assert p["extra"] == {"source_url": "x"}


def test_title_falls_back_to_h1_then_file_name() -> None:
    assert parse_markdown("# Heading One\ntext", fallback_title="f")["title"] == "Heading One"
    assert parse_markdown("just text", fallback_title="file-name")["title"] == "file-name"


@pytest.mark.parametrize(
    "text, reason",
    [
        ("---\ntitle: [unclosed\n---\nbody", "malformed YAML frontmatter"),
        ("---\n- a\n- b\n---\nbody", "expected `key: value` pairs"),
        ("---\ntitle: x\nno closing line", "never closed"),
    ],
)
def test_malformed_frontmatter_is_a_clear_error(text: str, reason: str) -> None:
    with pytest.raises(IndexingError, match=reason):
        parse_markdown(text, fallback_title="f")


def test_bad_files_fail_with_reasons(tmp_path: Path) -> None:
    (tmp_path / "empty.md").write_text("")
    (tmp_path / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    reasons = {}
    for name in ("empty.md", "binary.md", "latin1.txt"):
        [item] = list(load_file(SourceFile(tmp_path / name, "v")))
        reasons[name] = item.reason  # type: ignore[union-attr]
    assert reasons == {
        "empty.md": "file is empty",
        "binary.md": "file holds binary data, not text (is it really .md?)",
        "latin1.txt": "file is not UTF-8 text (byte 3); re-save it as UTF-8",
    }


def test_discover_reports_missing_paths_and_unsupported_types(tmp_path: Path) -> None:
    (tmp_path / "v" / ".obsidian").mkdir(parents=True)
    (tmp_path / "v" / "sub").mkdir()
    (tmp_path / "v" / "sub" / "n.md").write_text("x")
    (tmp_path / "v" / "image.png").write_bytes(b"png")
    (tmp_path / "doc.docx").write_bytes(b"zip")
    files, failures, ignored = discover([tmp_path / "v", tmp_path / "missing", tmp_path / "doc.docx"])
    assert [(f.path.name, f.vault) for f in files] == [("n.md", "v")]
    assert ignored == 1
    assert [f.reason.split(";")[0] for f in failures] == ["path does not exist", "unsupported file type .docx"]


def test_vault_is_nearest_obsidian_folder_else_the_given_root(tmp_path: Path) -> None:
    (tmp_path / "notes" / "inner").mkdir(parents=True)
    f = tmp_path / "notes" / "inner" / "a.md"
    f.write_text("x")
    assert find_vault(f, tmp_path / "notes") == "notes"
    (tmp_path / "notes" / "inner" / ".obsidian").mkdir()
    assert find_vault(f, tmp_path / "notes") == "inner"


def test_jsonl_bad_lines_fail_alone(tmp_path: Path) -> None:
    p = tmp_path / "c.jsonl"
    p.write_text(
        '{"_id": "a", "title": "A", "text": "alpha", "metadata": {"tags": ["x"]}}\n'
        '{"_id": "b", "text": \n'
        '{"title": "no id"}\n'
        '{"_id": "c", "title": "", "text": ""}\n'
        '{"_id": "d", "text": "delta"}\n',
        encoding="utf-8",
    )
    items = list(load_file(SourceFile(p, "v")))
    docs = [i for i in items if hasattr(i, "doc_id")]
    fails = [i for i in items if not hasattr(i, "doc_id")]
    assert [d.doc_id for d in docs] == ["a", "d"]  # type: ignore[union-attr]
    assert docs[0].tags == ["x"] and docs[0].origin == str(p)  # type: ignore[union-attr]
    assert [f.source.rsplit(":", 1)[1] for f in fails] == ["2", "3", "4"]  # type: ignore[union-attr]
    assert "malformed JSON" in fails[0].reason and '"_id"' in fails[1].reason  # type: ignore[union-attr]


def test_html_headings_become_sections(tmp_path: Path) -> None:
    p = tmp_path / "page.html"
    p.write_text(
        "<html lang='ja'><head><title>ページ</title><link rel='canonical' href='https://ex.com/p'>"
        "<script>var x</script></head><body><nav>menu</nav><main><h1>見出し</h1><p>本文です。</p>"
        "<h2>Sub</h2><ul><li>item</li></ul></main></body></html>",
        encoding="utf-8",
    )
    [d] = list(load_file(SourceFile(p, "v")))
    assert d.title == "ページ" and d.source == "https://ex.com/p" and d.origin == str(p)  # type: ignore[union-attr]
    assert d.text == "# 見出し\n\n本文です。\n\n## Sub\n\n- item"  # type: ignore[union-attr]


def test_pdf_info_gives_authors_year_doi_and_keywords(tmp_path: Path) -> None:
    from tests.fakes.pdf import minimal_pdf

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(
        minimal_pdf(
            "Dense retrieval for notes",
            "Abstract: we compare BM25 and dense vectors.",
            info={
                "/Title": "Dense retrieval for notes",
                "/Author": "Jane Smith, John Doe and Ann Lee",
                "/Keywords": "retrieval; BM25, dense",
                "/Subject": "Information retrieval",
                "/CreationDate": "D:20210314120000Z",
                "/DOI": "10.1234/abcd.5678",
            },
        )
    )
    (doc,) = load_file(SourceFile(pdf, None))
    assert doc.title == "Dense retrieval for notes"
    assert doc.metadata == {
        "authors": ["Jane Smith", "John Doe", "Ann Lee"],
        "year": 2021,
        "doi": "10.1234/abcd.5678",
        "subject": "Information retrieval",
        "keywords": ["retrieval", "BM25", "dense"],
    }


def test_pdf_doi_is_read_off_the_first_page_and_one_family_first_name_stays_whole(tmp_path: Path) -> None:
    from tests.fakes.pdf import minimal_pdf

    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(minimal_pdf("A study", "doi: 10.5555/xyz-12.", info={"/Author": "Smith, John"}))
    (doc,) = load_file(SourceFile(pdf, None))
    assert doc.metadata["doi"] == "10.5555/xyz-12"
    assert doc.metadata["authors"] == ["Smith, John"]
    assert "year" not in doc.metadata  # no date anywhere: none invented


def test_pdf_without_info_has_no_metadata(tmp_path: Path) -> None:
    from tests.fakes.pdf import minimal_pdf

    pdf = tmp_path / "plain.pdf"
    pdf.write_bytes(minimal_pdf("Just text here"))
    (doc,) = load_file(SourceFile(pdf, None))
    assert doc.metadata == {}


def test_a_date_as_frontmatter_key_is_kept_as_text(tmp_path: Path) -> None:
    p = tmp_path / "2024-01-05.md"
    p.write_text("---\n2024-01-05: standup\nmeetings: {2024-01-06: review}\n---\n# Daily\nNotes of the day.\n")
    [d] = list(load_file(SourceFile(p, "v")))
    assert d.metadata == {"2024-01-05": "standup", "meetings": {"2024-01-06": "review"}}  # type: ignore[union-attr]
