"""The no-LLM path over the sample vaults: routing, context grading, extraction, grounding, usefulness."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from components.factory import Components
from components.heuristics.analysis import analyze_query
from components.heuristics.extractive import extract_answer
from components.heuristics.grading import check_support, grade_answer, grade_context
from components.heuristics.routing import ExemplarRouter
from components.retrieval.dense import dense_search
from components.retrieval.filters import SearchFilters
from components.retrieval.fusion import fuse
from components.retrieval.lexical import engine_search
from components.text.messages import NO_INFO
from tests.conftest import REPO
from tests.integration.helpers import sample_store

pytestmark = pytest.mark.integration

QUESTIONS = [
    "味噌汁で味噌を入れるタイミングは？",
    "京都旅行で伏見稲荷大社には何時ごろ着いた？",
    "fugashi とは何で、小さいほうの辞書パッケージは何？",
    "multilingual-e5 を使うとき、クエリと文書に付けるプレフィックスは？",
    "町内会の秋祭りの予算はいくら？",
    "What is the Reciprocal Rank Fusion formula, and what value is usually used for k?",
    "What are the typical values of the BM25 parameters k1 and b?",
    "What was my finish time in the half marathon?",
    "When should I water the monstera?",
    "In the DPR paper, how did DPR compare with BM25 on Natural Questions top-20 retrieval accuracy?",
]
ABSENT = ["What is the capital of Mongolia?", "量子コンピュータの誤り訂正"]


@pytest.fixture(scope="module")
def c(tmp_path_factory: pytest.TempPathFactory) -> Any:
    comp, _ = sample_store(tmp_path_factory.mktemp("nonllm"))
    yield comp
    comp.close()


def results(c: Components, q: str, k: int = 5) -> list[dict[str, Any]]:
    f = SearchFilters()
    dense, _ = dense_search(c.index(), c.embedder, [q], f, limit=20)
    lexical, _ = engine_search(c.lexical(), [q], f, limit=20)
    return [
        {"text": h.payload["text"], "title": h.payload.get("title"), "retriever_scores": h.scores}
        for h in fuse(dense, lexical)[:k]
    ]


def lang(q: str) -> str:
    return analyze_query(q).language


def extract(c: Components, q: str) -> tuple[str, list[str]]:
    res = results(c, q)
    passages = [r["text"] for r in res]
    ex = extract_answer(
        q, passages, tokenize=c.tokenizer, idf=c.corpus().idf, language=lang(q), embed=c.embedder.encode_queries
    )
    return ex.answer, passages


def test_japanese_miso_question_gets_the_step_that_answers_it(c: Components) -> None:
    answer, _ = extract(c, QUESTIONS[0])
    first = answer.split("。")[0]
    assert "火を止めてから" in first and "溶き入れる" in first
    assert re.search(r"\[\d\]。", answer)  # cited Japanese-style, before the full stop
    assert "。 " not in answer and " [" not in answer  # no English spacing between sentences
    assert answer.count("[") <= 3


def test_english_monstera_question_gets_the_watering_rule(c: Components) -> None:
    answer, _ = extract(c, QUESTIONS[8])
    assert answer.startswith("Water only when the top 5 cm of soil is dry. [1]")
    assert "empty the saucer" in answer


def test_extraction_says_no_information_for_an_unrelated_context(c: Components) -> None:
    ex = extract_answer(
        "What is the capital of Mongolia?",
        [r["text"] for r in results(c, "What is the capital of Mongolia?")],
        tokenize=c.tokenizer,
        idf=c.corpus().idf,
        embed=c.embedder.encode_queries,
    )
    assert ex.answer == NO_INFO["en"] and ex.used_sources == []


@pytest.mark.parametrize("q", QUESTIONS)
def test_context_for_the_sample_questions_is_relevant(c: Components, q: str) -> None:
    g = grade_context(q, results(c, q), tokenize=c.tokenizer, idf=c.corpus().idf)
    assert g.relevant, g.reason
    assert 0.5 <= g.score <= 1.0 and len(g.chunk_scores) == 5


@pytest.mark.parametrize("q", ABSENT)
def test_context_for_absent_topics_is_not_relevant(c: Components, q: str) -> None:
    g = grade_context(q, results(c, q), tokenize=c.tokenizer, idf=c.corpus().idf)
    assert not g.relevant, g.reason
    assert g.score < 0.5


def test_context_grading_without_dense_scores_uses_the_embedder(c: Components) -> None:
    q = QUESTIONS[8]
    res = [{**r, "retriever_scores": {"bm25": 3.0}} for r in results(c, q)]
    qv = c.embedder.encode_queries([q])[0]
    g = grade_context(q, res, question_vector=qv, embed=c.embedder.encode_documents, tokenize=c.tokenizer)
    assert g.relevant
    assert not grade_context("What is the capital of Mongolia?", [], tokenize=c.tokenizer).relevant


def test_support_passes_copied_answers_and_catches_invented_sentences(c: Components) -> None:
    answer, passages = extract(c, QUESTIONS[8])
    embed = c.embedder.encode_queries
    assert check_support(answer, passages, embed=embed, tokenize=c.tokenizer).grounded
    paraphrase = "Water it when the upper few centimetres of soil have dried out. [1]"
    assert check_support(paraphrase, passages, embed=embed, tokenize=c.tokenizer).grounded
    bad = check_support(answer + " The moon is made of cheese. [2]", passages, embed=embed, tokenize=c.tokenizer)
    assert not bad.grounded and bad.unsupported == ["The moon is made of cheese."]
    assert check_support(NO_INFO["ja"], passages, embed=embed).grounded
    ja, ja_passages = extract(c, QUESTIONS[0])
    assert check_support(ja, ja_passages, embed=embed, tokenize=c.tokenizer).grounded


def test_answer_grade_prefers_answers_to_no_information(c: Components) -> None:
    kw = {"embed": c.embedder.encode_queries, "tokenize": c.tokenizer, "idf": c.corpus().idf}
    answer, _ = extract(c, QUESTIONS[8])
    assert grade_answer(QUESTIONS[8], answer, **kw).useful
    assert not grade_answer(QUESTIONS[8], NO_INFO["en"], **kw).useful
    assert not grade_answer(QUESTIONS[0], NO_INFO["ja"], **kw).useful
    off_topic = grade_answer(QUESTIONS[8], "Karaage is marinated in soy sauce and ginger.", **kw)
    assert not off_topic.useful and off_topic.score < grade_answer(QUESTIONS[8], answer, **kw).score


def test_router_sends_chit_chat_and_news_away_and_questions_to_the_notes(c: Components) -> None:
    router = ExemplarRouter(c.embedder.encode_queries)
    assert router.route("Hello there!").route == "direct_answer"
    assert router.route("ありがとうございました！").route == "direct_answer"
    assert router.route("What's the weather forecast for Nagoya tomorrow?").route == "web_search"
    assert router.route("最新のニュースは？").route == "web_search"
    for q in QUESTIONS:
        d = router.route(q)
        assert d.route == "vector_search", (q, d)
    labelled = [json.loads(x) for x in (REPO / "tests/data/route_questions.jsonl").read_text().splitlines() if x]
    hits = sum(router.route(r["question"]).route == r["route"] for r in labelled)
    assert hits / len(labelled) >= 0.85


def test_router_keeps_benchmark_questions_on_vector_search(c: Components) -> None:
    router = ExemplarRouter(c.embedder.encode_queries)
    data = REPO.parent / "shared" / "data"
    if not data.exists():
        pytest.skip("benchmark data not present")
    for name in ("scifact", "jsquad"):
        lines = (data / name / "queries.jsonl").read_text(encoding="utf-8").splitlines()[:100]
        qs = [json.loads(x)["text"] for x in lines]
        vecs = c.embedder.encode_queries(qs)
        share = sum(router.route(q, v).route == "vector_search" for q, v in zip(qs, vecs, strict=True)) / len(qs)
        assert share >= 0.99, name


def test_query_vectors_are_cached_and_cannot_be_corrupted(c: Components) -> None:
    emb = c.embedder
    q = "When should I water the monstera? (cache probe)"
    first = emb.encode_queries([q, "another probe"])
    first[0][:] = 0.0  # a caller scribbling on its copy
    again = emb.encode_queries([q])
    assert abs(float(again[0] @ again[0]) - 1.0) < 1e-4
    calls: list[list[str]] = []
    encode = emb._encode

    def counting(texts: list[str], *, is_query: bool) -> Any:
        calls.append(list(texts))
        return encode(texts, is_query=is_query)

    emb._encode = counting  # type: ignore[method-assign]
    try:
        for _ in range(5):
            emb.encode_queries([q])
        emb.encode_queries([q, "a new probe"])
    finally:
        emb._encode = encode  # type: ignore[method-assign]
    assert calls == [["a new probe"]]  # cached texts never reach the model again
