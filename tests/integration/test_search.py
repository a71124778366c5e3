"""Search through the real graph: filters on both retrievers, formats, debug, errors, fallbacks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from cli import search_cmd, search_formats
from components.factory import Components
from components.resilience.errors import CollectionNotFound, QueryError
from components.retrieval.dense import dense_search
from components.retrieval.filters import SearchFilters
from components.retrieval.lexical import engine_search
from graph.context import Context
from graph.rag import build_rag_graph
from tests.integration.helpers import sample_store

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    c, vaults = sample_store(tmp_path_factory.mktemp("search"))
    yield c, vaults
    c.close()


def run(c: Components, **payload: Any) -> dict[str, Any]:
    ctx = payload.pop("context", Context())
    out: dict[str, Any] = asyncio.run(build_rag_graph(c).ainvoke({"mode": "search", **payload}, context=ctx))
    return out


FILTERS = [
    {"vaults": ["life"]},
    {"tags": ["料理", "和食"]},
    {"created_from": "2025-01-01", "created_to": "2025-12-31"},
    {"source_prefix": "VAULT/research/papers"},
    {"section": "Watering rule"},
    {"language": "ja"},
    {"where": [{"key": "format", "op": "eq", "value": "markdown"}, {"key": "title", "op": "contains", "value": "BM"}]},
    {"where": [{"key": "chunk_index", "op": "range", "gte": 1, "lt": 3}]},
    {"where": [{"key": "tags", "op": "in", "value": ["rag", "running"]}]},
    {"where": [{"key": "tags", "op": "contains", "value": "search"}]},  # a substring of any element of a list
    {"where": [{"key": "created", "op": "range", "gte": "2025-06-01"}]},
]


@pytest.mark.parametrize("raw", FILTERS, ids=lambda f: ",".join(f))
def test_each_filter_admits_the_same_chunks_on_both_sides(indexed: Any, raw: dict[str, Any]) -> None:
    c, vaults = indexed
    raw = json.loads(json.dumps(raw).replace("VAULT", str(vaults)))
    f = SearchFilters.parse(raw)
    in_qdrant = {str(p.id) for p in c.index().scroll(scroll_filter=f.to_qdrant())}
    every = {str(p.id): dict(p.payload or {}) for p in c.index().scroll()}
    in_python = {pid for pid, p in every.items() if f.matches(p)}
    assert in_qdrant == in_python
    assert 0 < len(in_qdrant) < len(every)  # the filter does something
    dense, _ = dense_search(c.index(), c.embedder, ["料理 search water"], f, limit=50)
    lexical, _ = engine_search(c.lexical(), ["料理 search water BM25 味噌"], f, limit=50)
    assert {h.point_id for h in dense[0]} <= in_qdrant
    assert {h.point_id for h in lexical[0]} <= in_qdrant
    out = run(c, question="味噌 water BM25 search", filters=raw, top_k=10)
    admitted_chunks = {every[pid]["chunk_id"] for pid in in_qdrant}
    assert out["results"] and {r["chunk_id"] for r in out["results"]} <= admitted_chunks


def test_an_offset_pages_through_the_ranking_and_a_bad_one_is_refused(indexed: Any) -> None:
    c, _ = indexed
    ask = {"question": "retrieval", "context": Context(min_score=0.0)}
    first = run(c, top_k=6, **ask)["results"]
    page = run(c, top_k=3, offset=3, **ask)["results"]
    assert [(r["rank"], r["chunk_id"]) for r in page] == [(r["rank"], r["chunk_id"]) for r in first[3:6]]
    documents = run(c, top_k=4, group_by_document=True, **ask)["results"]
    next_documents = run(c, top_k=2, offset=2, group_by_document=True, **ask)["results"]
    assert [d["doc_id"] for d in next_documents] == [d["doc_id"] for d in documents[2:4]]
    with pytest.raises(QueryError, match="offset"):
        run(c, top_k=10, offset=995, **ask)


def test_a_search_of_conditions_alone_returns_the_documents_that_meet_them(indexed: Any) -> None:
    c, _ = indexed
    out = run(c, question="2024年に書いた #料理 のメモ", top_k=10)
    assert out["route"] == "metadata_search"
    assert [d["title"] for d in out["results"]] == ["味噌汁", "親子丼"]  # by date: a period was named
    assert all(d["score"] == 1.0 and d["chunks"][0]["position"] == 0 for d in out["results"])
    page = run(c, question="2024年に書いた #料理 のメモ", top_k=1, offset=1)["results"]
    assert [(d["rank"], d["title"]) for d in page] == [(2, "親子丼")]
    # a topic beside the tag: the query is searched as given
    topical = run(c, question="#料理 だしの取り方", top_k=3)
    assert topical.get("route") != "metadata_search" and "chunks" not in topical["results"][0]


def test_embeddings_are_included_when_asked_and_are_the_ones_dense_search_compared(indexed: Any) -> None:
    c, _ = indexed
    out = run(c, question="When should I water the monstera?", top_k=3, include_embeddings=True)
    query = out["query_embedding"]
    assert len(query) == c.embedder.dim
    for r in out["results"]:
        if "dense" in r["retriever_scores"]:
            cosine = sum(a * b for a, b in zip(query, r["embedding"], strict=True))
            assert abs(cosine - r["retriever_scores"]["dense"]) < 1e-3
    plain = run(c, question="When should I water the monstera?", top_k=3)
    assert plain.get("query_embedding") is None and not any("embedding" in r for r in plain["results"])


def test_results_carry_metadata_and_scores(indexed: Any) -> None:
    c, _ = indexed
    out = run(c, question="When should I water the monstera?", top_k=3)
    assert out["total"] == 3
    best = out["results"][0]
    assert best["title"] == "Monstera Care" and best["section_hierarchy"][-1] == "Watering rule"
    assert (
        best["vault"] == "life"
        and best["language"] == "en"
        and best["chunk"].endswith(f"of {best['chunk'].split()[-1]}")
    )
    assert best["position"] == int(best["chunk"].split()[0]) - 1 and best["chunk_id"].endswith(f"#{best['position']}")
    assert 0 < out["results"][-1]["score"] <= best["score"] <= 1.0
    assert set(best["ranks"]) <= {"dense", "bm25"} and best["retriever_scores"]
    # no cross-encoder is the default, not a degradation: said under --debug, not as a warning
    assert not any("Reranking skipped" in w for w in out["warnings"])
    debug = run(c, question="When should I water the monstera?", top_k=3, debug=True)["debug_info"]
    assert debug["rerank"].startswith("skipped: no cross-encoder is configured")
    again = run(c, question="When should I water the monstera?", top_k=3)
    assert [r["chunk_id"] for r in again["results"]] == [r["chunk_id"] for r in out["results"]]


def test_fusion_is_a_run_knob_and_both_methods_score_on_zero_to_one(indexed: Any) -> None:
    c, _ = indexed
    q = "When should I water the monstera?"
    default = run(c, question=q, top_k=5)
    rrf = run(c, question=q, top_k=5, context=Context(fusion="rrf"))
    assert Context().fusion == "convex"
    for out in (default, rrf):
        assert out["results"][0]["section_hierarchy"][-1] == "Watering rule"
        scores = [r["score"] for r in out["results"]]
        assert scores == sorted(scores, reverse=True) and scores[-1] >= 0 and scores[0] <= 1.0
    # the two methods rank differently (convex keeps how far apart the raw scores are); the score
    # users see is the calibrated relevance, the ranker's own stays in retriever_scores
    ranker = [r["retriever_scores"]["ranker"] for r in default["results"]]
    assert ranker != [r["retriever_scores"]["ranker"] for r in rrf["results"]]
    with pytest.raises(ValueError, match="fusion must be one of rrf, convex, not 'borda'"):
        Context(fusion="borda")


def test_japanese_query_finds_the_japanese_note(indexed: Any) -> None:
    c, _ = indexed
    out = run(c, question="味噌を入れるタイミング", top_k=5)
    assert out["results"][0]["title"] == "味噌汁"
    assert "3. 味噌を溶く" in {r["section_hierarchy"][-1] for r in out["results"]}


def test_filter_that_empties_the_result_is_named(indexed: Any) -> None:
    c, _ = indexed
    out = run(c, question="味噌", filters={"tags": ["no-such-tag"]})
    assert out["results"] == [] and any("no chunk matches the filter tag 'no-such-tag'" in w for w in out["warnings"])
    out = run(c, question="味噌", filters={"vaults": ["research"], "tags": ["料理"]})
    assert any("together they match nothing" in w for w in out["warnings"])


@pytest.mark.parametrize(
    ("filters", "hint"),
    [
        ({"vaults": ["reserch"]}, "no chunk matches the filter vault in ['reserch']; did you mean 'research'?"),
        ({"tags": ["RAG"]}, "no chunk matches the filter tag 'RAG'; did you mean 'rag'?"),
        ({"language": "de"}, "no chunk matches the filter language 'de'; the index holds 'en', 'ja'"),
        (
            {"where": [{"key": "format", "op": "eq", "value": "markdwon"}]},
            "no chunk matches the filter format == 'markdwon'; did you mean 'markdown'?",
        ),
    ],
)
def test_a_filter_value_that_matches_nothing_suggests_what_the_index_holds(
    indexed: Any, filters: dict[str, Any], hint: str
) -> None:
    c, _ = indexed
    out = run(c, question="search", filters=filters)
    assert out["results"] == [] and any(hint in w for w in out["warnings"]), out["warnings"]


def test_group_by_document_multi_query_and_similar(indexed: Any) -> None:
    c, _ = indexed
    grouped = run(c, question="BM25 parameters", top_k=10, group_by_document=True)["results"]
    assert len({g["doc_id"] for g in grouped}) == len(grouped)
    assert all(g["score"] == max(ch["score"] for ch in g["chunks"]) for g in grouped)
    single = run(c, question="monstera watering", top_k=5)["results"]
    multi = run(c, question="monstera watering", queries=["味噌汁の作り方"], top_k=10)["results"]
    assert {r["title"] for r in single} < {r["title"] for r in multi} and "味噌汁" in {r["title"] for r in multi}
    source_doc = single[0]["doc_id"]
    similar = run(c, similar_to=source_doc, top_k=3, group_by_document=True)["results"]
    assert similar and source_doc not in {g["doc_id"] for g in similar}


def test_debug_output(indexed: Any) -> None:
    c, _ = indexed
    out = run(c, question="RRF k", filters={"vaults": ["research"]}, debug=True, top_k=2)
    d = out["debug_info"]
    assert d["collection"] == "rag" and d["vector_size"] == 384 and d["retrievers"] == ["bm25", "dense"]
    assert d["qdrant_filter"]["must"][0]["key"] == "vault"
    assert {"query_embedding", "dense", "bm25", "fusion"} <= set(out["timings_ms"])


def test_errors_are_clear(indexed: Any, tmp_path: Path) -> None:
    c, _ = indexed
    with pytest.raises(QueryError, match="empty"):
        run(c, question="   ")
    with pytest.raises(QueryError, match="Allowed keys"):
        run(c, question="x", filters={"folder": "a"})
    with pytest.raises(CollectionNotFound, match="rag ingest"):
        run(c, question="x", context=Context(collection="missing"))


def test_vector_store_failure_falls_back_to_bm25(indexed: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    c, _ = indexed

    def down(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("qdrant unreachable")

    monkeypatch.setattr(type(c.index()), "search", down)
    out = run(c, question="monstera watering", top_k=3)
    assert out["results"] and all(set(r["ranks"]) == {"bm25"} for r in out["results"])
    assert any("BM25 only" in w for w in out["warnings"])


def test_slow_vector_store_is_cut_at_the_timeout(indexed: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    c, _ = indexed
    # same store and caches, shorter timeout
    fast = Components(c.settings.model_copy(update={"vector_timeout": 0.3}), embedder=c.embedder, store_of=c)
    original = type(c.index()).search
    release, finished = threading.Event(), threading.Event()

    def slow(self: Any, *args: Any, **kwargs: Any) -> Any:
        release.wait(30)  # hangs until the test lets it go
        finished.set()
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(c.index()), "search", slow)

    async def ask() -> dict[str, Any]:
        out: dict[str, Any] = await build_rag_graph(fast).ainvoke(
            {"mode": "search", "question": "monstera watering", "top_k": 3}
        )
        assert not finished.is_set()  # the answer came while the vector store still hung
        release.set()
        return out

    out = asyncio.run(ask())
    assert any("Dense retrieval was unavailable (timed out)" in w for w in out["warnings"])
    assert out["results"] and all(set(r["ranks"]) == {"bm25"} for r in out["results"])


def test_slow_bm25_search_is_cut_at_its_timeout(indexed: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from nodes.rag import retrieve_bm25

    c, _ = indexed
    # same store and caches, shorter timeout
    fast = Components(c.settings.model_copy(update={"bm25_timeout": 0.3}), embedder=c.embedder, store_of=c)
    release = threading.Event()
    # the search takes 3 s against a timeout of 0.3 s; the run ends when it is cut, and only
    # leaves the event loop when the cut-off thread has finished
    threading.Timer(3.0, release.set).start()

    def slowed(original: Any) -> Any:
        def slow(*args: Any, **kwargs: Any) -> Any:
            release.wait(30)
            return original(*args, **kwargs)

        return slow

    monkeypatch.setattr(retrieve_bm25, "engine_search", slowed(retrieve_bm25.engine_search))
    try:
        out = asyncio.run(
            build_rag_graph(fast).ainvoke({"mode": "search", "question": "monstera watering", "top_k": 3})
        )
    finally:
        release.set()
    assert any(
        "BM25 retrieval failed (timed out); results come from dense retrieval only" in w for w in out["warnings"]
    )
    assert out["results"] and all(set(r["ranks"]) == {"dense"} for r in out["results"])


def test_bm25_failure_falls_back_to_dense(indexed: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    c, _ = indexed

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bm25 cache corrupt")

    monkeypatch.setattr(Components, "lexical", broken)  # the store's BM25 side cannot be read
    out = run(c, question="monstera watering", top_k=3)
    assert out["results"] and all(set(r["ranks"]) == {"dense"} for r in out["results"])
    assert any("dense retrieval only" in w for w in out["warnings"])


def test_bm25_ranks_with_the_store_s_idf_when_the_term_statistics_are_unreadable(
    indexed: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    c, _ = indexed

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("term statistics unreadable")

    monkeypatch.setattr(Components, "corpus", broken)
    out = run(c, question="monstera watering", top_k=3)
    assert any("bm25" in r["ranks"] for r in out["results"])
    assert out["results"][0]["title"] == "Monstera Care"
    assert any("BM25 ranks with the store's own IDF" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("fmt", search_formats.FORMATS)
def test_every_format_renders(indexed: Any, fmt: str) -> None:
    c, _ = indexed
    report = search_cmd.SearchRequest(question="monstera watering", top_k=2, debug=True).here(c)
    text = search_formats.render(report, fmt)
    first = report["results"][0]
    expected = {
        "text": f"Result [1]: Score {first['score']:.3f}",
        "markdown": "### 1. Monstera Care — Watering rule",
        "brief": "  1. ",
        "citations": "[1] Monstera Care — Watering rule. ",
    }
    if fmt == "json":
        assert json.loads(text)["results"][0]["chunk_id"] == first["chunk_id"]
    else:
        assert expected[fmt] in text and "debug:" in text


@pytest.mark.parametrize(
    "nonsense", ["xyznonexistent123", "ほげほげふがふが", "How do I replace the chain on a road bicycle?"]
)
def test_a_query_nothing_matches_comes_back_empty_with_what_to_try(indexed: Any, nonsense: str) -> None:
    c, _ = indexed
    out = run(c, question=nonsense)
    assert out["results"] == []
    assert any(
        ("Nothing in the index looks relevant" in w or "関連しそうな結果はありません" in w) and "--min-score 0" in w
        for w in out["warnings"]
    )
    closest = run(c, question=nonsense, context=Context(min_score=0.0))["results"]
    assert closest and all(r["score"] < Context().min_score for r in closest), "min_score 0 shows the closest chunks"


def test_scores_mean_the_same_across_queries_and_follow_the_ranking(indexed: Any) -> None:
    c, _ = indexed
    good = run(c, question="When should I water the monstera?", top_k=8, context=Context(min_score=0.0))["results"]
    bad = run(c, question="xyznonexistent123", top_k=8, context=Context(min_score=0.0))["results"]
    assert good[0]["title"] == "Monstera Care" and good[0]["score"] > 0.9
    assert bad[0]["score"] < 0.1, "the best hit of a nonsense query no longer scores 1.0"
    for rows in (good, bad):
        scores = [r["score"] for r in rows]
        assert scores == sorted(scores, reverse=True) and all(0.0 <= s <= 1.0 for s in scores)
        assert all({"ranker", "relevance"} <= set(r["retriever_scores"]) for r in rows)


def test_a_minimum_score_outside_0_to_1_is_refused() -> None:
    with pytest.raises(ValueError, match=r"min_score must be in 0\.\.1"):
        Context(min_score=1.5)


@pytest.mark.parametrize(
    ("question", "note"),
    [
        # each ranked 6th or 7th before BM25's silence stopped counting against the other language
        ("What time did we get to Fushimi Inari shrine?", "京都旅行記"),
        ("How does a cross-encoder differ from a bi-encoder?", "クロスエンコーダ再ランキング"),
        ("DPR の学習で使うハードネガティブとは？", "Dense Passage Retrieval"),
    ],
)
def test_a_question_finds_a_note_written_in_the_other_language(indexed: Any, question: str, note: str) -> None:
    c, _ = indexed
    out = run(c, question=question, top_k=5, group_by_document=True, context=Context(min_score=0.0))
    assert note in [r["title"] for r in out["results"]], [r["title"] for r in out["results"]]


def test_a_notes_aliases_in_the_other_language_make_it_found_and_scored(indexed: Any) -> None:
    c, _ = indexed
    out = run(c, question="モンステラの水やりはいつ？", top_k=5)  # the default minimum applies
    monstera = [r for r in out["results"] if r["title"] == "Monstera Care"]
    assert monstera and monstera[0]["aliases"] == ["モンステラ", "Monstera deliciosa"]
    assert min(r["score"] for r in monstera) >= Context().min_score
