"""`rag search` as evaluation harnesses and people call it: batch contract, formats, errors.

The commands run through the console script's entry point in this process (``rag_here``):
nothing here crosses processes, and a subprocess per command spent most of its time starting.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import env_for, rag_here

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-search")
    shutil.copytree(SAMPLE_VAULTS / "life", root / "life")
    rag(root, "ingest", str(root / "life"), "--json")
    return root


def rag(home: Path, *args: str, code: int = 0, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    proc = rag_here(home, *args, stdin=stdin)
    assert proc.returncode == code, proc.stderr + proc.stdout
    assert "Traceback" not in proc.stderr
    return proc


def test_batch_contract(home: Path) -> None:
    queries = home / "queries.jsonl"
    queries.write_text(
        '{"_id": "q1", "text": "monstera watering"}\n{"_id": "q2", "text": "味噌汁の作り方"}\n', encoding="utf-8"
    )
    lines = [json.loads(x) for x in rag(home, "search", "--batch", str(queries), "-k", "3").stdout.splitlines()]
    assert [x["query_id"] for x in lines] == ["q1", "q2"]
    for x in lines:
        docs = [r["doc_id"] for r in x["results"]]
        assert len(docs) == 3 == len(set(docs))
        assert [r["rank"] for r in x["results"]] == [1, 2, 3]
        assert set(x["results"][0]) == {"doc_id", "chunk_id", "score", "rank"}
    assert lines[0]["results"][0]["doc_id"].endswith("Monstera Care.md")
    assert lines[1]["results"][0]["doc_id"].endswith("味噌汁.md")


def test_a_batch_ranked_several_at_a_time_writes_what_each_question_alone_gets_in_the_files_order(
    home: Path,
) -> None:
    # the first question runs alone, then BATCH_CONCURRENCY (4) at a time: six fill the window
    asked = ["monstera watering", "味噌汁の作り方", "BM25 k1", "京都の紅葉", "dense passage retrieval", "唐揚げ"]
    queries = home / "several.jsonl"
    queries.write_text("".join(json.dumps({"_id": f"q{i}", "text": t}) + "\n" for i, t in enumerate(asked)))
    together = rag(home, "search", "--batch", str(queries), "-k", "5").stdout.splitlines()
    alone = []
    for i, text in enumerate(asked):
        one = home / f"one{i}.jsonl"
        one.write_text(json.dumps({"_id": f"q{i}", "text": text}) + "\n")
        alone += rag(home, "search", "--batch", str(one), "-k", "5").stdout.splitlines()
    assert [json.loads(x) for x in together] == [json.loads(x) for x in alone]


def test_bad_batch_line_is_reported(home: Path) -> None:
    queries = home / "bad.jsonl"
    queries.write_text('{"text": "no id"}\n', encoding="utf-8")
    proc = rag(home, "search", "--batch", str(queries), code=1)
    assert "bad.jsonl:1: expected a JSON object with _id and text" in " ".join(proc.stderr.split())


def test_json_format_filters_and_output_file(home: Path) -> None:
    out = json.loads(rag(home, "search", "出汁の取り方", "--tag", "料理", "--lang", "ja", "--json").stdout)
    assert out["results"] and all("料理" in r["tags"] and r["language"] == "ja" for r in out["results"])
    assert out["filters"] == {"tags": ["料理"], "language": "ja"} and "total" in out["timings_ms"]
    target = home / "out.md"
    rag(home, "search", "monstera", "--format", "markdown", "--output", str(target))
    assert target.read_text(encoding="utf-8").startswith("## Search: monstera")


def test_empty_query_and_bad_filter(home: Path) -> None:
    assert "the query is empty" in rag(home, "search", "  ", code=2).stderr
    err = " ".join(rag(home, "search", "x", "--from", "2025-13-01", code=1).stderr.split())
    assert "Invalid filters: created_from" in err


def test_similar_documents_exclude_the_source(home: Path) -> None:
    first = json.loads(rag(home, "search", "monstera", "-k", "1", "--json").stdout)["results"][0]["doc_id"]
    out = json.loads(rag(home, "similar", first, "--format", "json").stdout)
    assert out["results"] and first not in {g["doc_id"] for g in out["results"]}
    unknown = rag(home, "similar", "no-such-doc", code=1).stderr
    assert "No document with id 'no-such-doc'" in unknown and "doc_id" in unknown


def test_paper_query_flags_short_and_long(home: Path) -> None:
    long = json.loads(rag(home, "search", "--query", "monstera watering", "--format", "json", "--top-k", "2").stdout)
    short = json.loads(rag(home, "search", "-q", "monstera watering", "-f", "json", "-k", "2").stdout)
    assert [r["chunk_id"] for r in long["results"]] == [r["chunk_id"] for r in short["results"]]
    assert "give the query once" in rag(home, "search", "a", "-q", "b", code=2).stderr
    target = home / "brief.txt"
    rag(home, "search", "-q", "monstera", "-f", "brief", "-o", str(target))
    assert target.read_text(encoding="utf-8").lstrip().startswith("1.")


def test_group_by_document_k_counts_documents(home: Path) -> None:
    args = ("search", "-q", "notes about cooking, running and search", "--min-score", "0", "-f", "json")
    grouped = json.loads(rag(home, *args, "--group-by-document", "-k", "4").stdout)["results"]
    assert len(grouped) == 4 and len({g["doc_id"] for g in grouped}) == 4
    assert sum(len(g["chunks"]) for g in grouped) >= 4
    chunks = json.loads(rag(home, *args, "-k", "4").stdout)["results"]
    assert len(chunks) == 4 and grouped[0]["doc_id"] == chunks[0]["doc_id"]


def test_save_keeps_each_search_and_the_latest_in_its_format(home: Path) -> None:
    proc = rag(home, "search", "-q", "monstera", "-f", "markdown", "-s")
    folder = Path(env_for(home)["DATA_DIR"]) / "query_results"
    saved = sorted(folder.glob("query_*.md"))
    assert saved and (folder / "latest.md").read_text(encoding="utf-8") == proc.stdout
    assert saved[-1].read_text(encoding="utf-8") == proc.stdout and "saved to" in proc.stderr
    rag(home, "search", "-q", "monstera", "-f", "json", "-s")
    assert json.loads((folder / "latest.json").read_text(encoding="utf-8"))["query"] == "monstera"


def test_show_prints_a_documents_metadata_and_chunks_and_refuses_an_unknown_id(home: Path) -> None:
    hit = json.loads(rag(home, "search", "-q", "味噌を入れるタイミング", "-k", "1", "-f", "json").stdout)["results"][0]
    doc = json.loads(rag(home, "show", hit["doc_id"], "--json").stdout)
    assert doc["doc_id"] == hit["doc_id"] and doc["title"] == "味噌汁" and "料理" in doc["tags"]
    assert [c["index"] for c in doc["chunks"]] == sorted(c["index"] for c in doc["chunks"])
    assert hit["chunk_id"] in {c["chunk_id"] for c in doc["chunks"]}
    text = rag(home, "show", hit["doc_id"]).stdout
    assert text.startswith("味噌汁\n") and f"chunks   {len(doc['chunks'])}" in text
    err = " ".join(rag(home, "show", "no-such-doc", code=1).stderr.split())
    assert "No document with id 'no-such-doc' in collection" in err


def test_status_facets_count_documents_per_vault_tag_and_language(home: Path) -> None:
    report = json.loads(rag(home, "status", "--facets", "--json").stdout)
    facets = report["facets"]
    assert facets["vaults"] == {"life": report["documents"]}  # this home ingested the life vault only
    assert facets["languages"].keys() == {"en", "ja"} and facets["tags"]["料理"] >= 2
    assert "facets" not in json.loads(rag(home, "status", "--json").stdout)
    assert "vaults" in rag(home, "status", "--facets").stdout


def test_paper_filters_select_by_year_collection_and_item_type(tmp_path: Path) -> None:
    papers = [
        (
            "bm25",
            "Okapi BM25 ranks documents by term frequency and inverse document frequency.",
            1994,
            ["ir"],
            "journalArticle",
        ),
        (
            "dpr",
            "Dense passage retrieval ranks passages by the dot product of learned vectors.",
            2020,
            ["ir", "nlp"],
            "conferencePaper",
        ),
        (
            "rag",
            "Retrieval-augmented generation ranks passages and then writes an answer from them.",
            2020,
            ["nlp"],
            "preprint",
        ),
    ]
    corpus = tmp_path / "papers.jsonl"
    corpus.write_text(
        "".join(
            json.dumps(
                {"_id": i, "title": i.upper(), "text": t, "metadata": {"year": y, "collections": c, "item_type": k}}
            )
            + "\n"
            for i, t, y, c, k in papers
        ),
        encoding="utf-8",
    )
    rag(tmp_path, "ingest", str(corpus), "--json")

    def docs(*flags: str) -> set[str]:
        out = json.loads(
            rag(
                tmp_path, "search", "-q", "ranks documents and passages", "--min-score", "0", "-f", "json", *flags
            ).stdout
        )
        return {r["doc_id"] for r in out["results"]}

    assert docs() == {"bm25", "dpr", "rag"}
    assert docs("--year-min", "2000") == {"dpr", "rag"} and docs("--year-max", "2000") == {"bm25"}
    assert docs("--collections", "ir") == {"bm25", "dpr"}
    assert docs("--item-types", "preprint", "--item-types", "journalArticle") == {"bm25", "rag"}
    assert docs("--year-min", "2020", "--collections", "ir") == {"dpr"}
    # a comma list is a list, not one value that matches nothing
    assert docs("--item-types", "preprint,journalArticle") == {"bm25", "rag"}
    assert docs("--collections", "ir, nlp") == {"bm25", "dpr", "rag"}
    # grouped, each document carries its own metadata, as a paper interface reads it
    grouped = json.loads(
        rag(tmp_path, "search", "-q", "dense passage", "--min-score", "0", "-f", "json", "--group-by-document").stdout
    )["results"]
    dpr = next(g for g in grouped if g["doc_id"] == "dpr")
    assert dpr["metadata"] == {"year": 2020, "collections": ["ir", "nlp"], "item_type": "conferencePaper"}
    brief = rag(tmp_path, "search", "-q", "dense passage", "--min-score", "0", "-f", "brief").stdout
    assert "DPR ›" not in brief and "unknown" not in brief  # an abstract has no section to show


def test_chunk_types_are_recorded_filterable_and_given_to_an_older_store(tmp_path: Path) -> None:
    from tests.fakes.pdf import minimal_pdf

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "bm25.md").write_text(
        "# BM25 tuning\n## Abstract\nWe tune BM25 parameters for short notes.\n"
        "## Setup\n```\npip install rank-bm25\n```\n"
        "## Parameters\n| k1 | b |\n|---|---|\n| 1.2 | 0.75 |\n"
        "## Discussion\nTuning BM25 parameters k1 and b helps short notes.\n",
        encoding="utf-8",
    )
    (notes / "paper.pdf").write_bytes(
        minimal_pdf(
            "Sparse retrieval revisited",
            "Abstract: BM25 parameters matter for sparse retrieval.",
            info={"/Title": "Sparse retrieval revisited", "/Author": "Jane Smith; Ken Sato", "/DOI": "10.1234/sr.1"},
        )
    )
    rag(tmp_path, "ingest", str(notes), "--json")

    def hits(*flags: str) -> list[dict[str, object]]:
        out = rag(tmp_path, "search", "-q", "BM25 parameters", "--min-score", "0", "-f", "json", *flags).stdout
        return list(json.loads(out)["results"])

    assert {r["chunk_type"] for r in hits()} == {"abstract", "code", "table", "body"}
    assert {(r["title"], r["chunk_type"]) for r in hits("-c", "abstract")} == {
        ("BM25 tuning", "abstract"),
        ("Sparse retrieval revisited", "abstract"),
    }
    assert {r["chunk_type"] for r in hits("--chunk-types", "table,code")} == {"table", "code"}
    paper = next(r for r in hits("-c", "abstract") if r["title"] == "Sparse retrieval revisited")
    assert paper["metadata"] == {"authors": ["Jane Smith", "Ken Sato"], "doi": "10.1234/sr.1"}
    cites = rag(tmp_path, "search", "-q", "sparse retrieval", "-c", "abstract", "-f", "citations").stdout
    assert "Smith, J., & Sato, K." in cites and "https://doi.org/10.1234/sr.1" in cites, cites
    bad = rag(tmp_path, "search", "-q", "BM25", "-c", "abstracts", code=1)
    assert "chunk_types" in bad.stderr and "'abstract'" in bad.stderr, bad.stderr

    # a store written before chunk types existed: the next ingestion labels it, embedding nothing
    import qdrant_edge as qe

    from components.stores.collection import TYPED_KEY
    from components.stores.qdrant import QdrantIndex

    store = QdrantIndex(collection="rag", path=tmp_path / "qdrant")
    client = store.client
    (name,) = [n for n in client.collection_names() if not n.endswith("_sentences")]
    client.delete_payload(name, keys=["chunk_type"], points=qe.Filter())
    meta = client.get_collection(name).config.metadata or {}
    # an earlier version's metadata has no mark that every chunk is labelled; the version moves so
    # that what queries read is read afresh
    client.update_collection(name, metadata={"version": int(meta["version"]) + 1, TYPED_KEY: False})
    store.close()
    assert hits("-c", "abstract") == []
    report = json.loads(rag(tmp_path, "ingest", str(notes), "--json").stdout)
    assert report["written_chunks"] == 0 and report["retyped"] == 5
    assert {r["chunk_type"] for r in hits()} == {"abstract", "code", "table", "body"}


def test_interactive_search_keeps_filters_history_and_answers_from_the_last_results(home: Path) -> None:
    session = "\n".join(
        [
            ":tag 料理",
            "出汁の取り方",  # searched under the tag
            ":from 2099-13-01",  # refused: the filters stay as they were
            ":filters",
            ":clear",
            "monstera watering",
            ":show 1",
            ":ask",
            "quit",
            "this line is never searched",
        ]
    )
    out = rag(home, "search", "-i", "-k", "3", stdin=session + "\n").stdout
    blocks = out.split("search> ")
    tagged = blocks[2]
    assert tagged.strip() and "Monstera" not in tagged and ("味噌汁" in tagged or "親子丼" in tagged), out
    assert "filters: tags=['料理']" in blocks[4], out
    assert "Monstera Care › Watering rule" in blocks[6]
    assert "Content:" in blocks[7] and "top 5 cm" in blocks[7]
    assert "[1] Monstera Care" in blocks[8] and "path extractive" in blocks[8]
    assert "never searched" not in out and out.rstrip().endswith("bye")
    errors = rag(home, "search", "-i", stdin=":from 2099-13-01\n").stderr
    assert "created_from" in errors and "2099-13-01" in errors

    # the next session sees this one's searches, re-runs one by number, and leaves on Ctrl-D (end of input)
    again = rag(home, "search", "-i", "-k", "1", "--lang", "en", stdin=":history\n!2\n").stdout
    listed = again.split("search> ")[1]
    assert "1  出汁の取り方" in listed and "2  monstera watering" in listed, again
    assert "search> monstera watering" in again and "Monstera Care › Watering rule" in again
    assert "filters: language=en" in again.splitlines()[0]
    assert (home / "data" / "history" / "search").exists()
