"""Query analysis: filters a user states in words, in Japanese and English, and none invented."""

from __future__ import annotations

from datetime import date

import pytest

from components.heuristics.analysis import analyze_query
from components.retrieval.filters import SearchFilters

TODAY = date(2025, 11, 20)  # a Thursday
VAULTS = ["research", "life"]
TAGS = ["rag", "料理", "cooking", "hybrid-search"]


def run(q: str) -> dict:  # type: ignore[type-arg]
    a = analyze_query(q, known_vaults=VAULTS, known_tags=TAGS, today=TODAY)
    SearchFilters.parse(a.filters)  # always valid filter input
    return a.to_dict()


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "notes tagged #cooking from 2024",
            {"tags": ["cooking"], "created_from": "2024-01-01", "created_to": "2024-12-31"},
        ),
        ("2024年の#料理のメモ", {"tags": ["料理"], "created_from": "2024-01-01", "created_to": "2024-12-31"}),
        ("#rag/eval notes since 2023", {"tags": ["rag/eval"], "created_from": "2023-01-01"}),
        ("2023年以降の #料理 のメモ", {"tags": ["料理"], "created_from": "2023-01-01"}),
        ("my notes before 2022", {"created_to": "2021-12-31"}),
        ("2021年以前のメモ", {"created_to": "2021-12-31"}),
        ("my notes from March 2024", {"created_from": "2024-03-01", "created_to": "2024-03-31"}),
        ("2024年3月のメモ", {"created_from": "2024-03-01", "created_to": "2024-03-31"}),
        ("What did I write last month?", {"created_from": "2025-10-01", "created_to": "2025-10-31"}),
        ("先月のメモ", {"created_from": "2025-10-01", "created_to": "2025-10-31"}),
        ("notes from this year", {"created_from": "2025-01-01", "created_to": "2025-11-20"}),
        ("今年のノート", {"created_from": "2025-01-01", "created_to": "2025-11-20"}),
        ("notes from last year", {"created_from": "2024-01-01", "created_to": "2024-12-31"}),
        ("去年のメモ", {"created_from": "2024-01-01", "created_to": "2024-12-31"}),
        ("昨年の日記", {"created_from": "2024-01-01", "created_to": "2024-12-31"}),
        ("notes I wrote last week", {"created_from": "2025-11-10", "created_to": "2025-11-16"}),
        ("先週のメモ", {"created_from": "2025-11-10", "created_to": "2025-11-16"}),
        ("notes I wrote today", {"created_from": "2025-11-20", "created_to": "2025-11-20"}),
        ("今日書いたメモ", {"created_from": "2025-11-20", "created_to": "2025-11-20"}),
        ("my recent notes about BM25", {"created_from": "2025-10-21", "created_to": "2025-11-20"}),
        ("最近のメモで BM25 について", {"created_from": "2025-10-21", "created_to": "2025-11-20"}),
        ("2022年から2024年までのメモ", {"created_from": "2022-01-01", "created_to": "2024-12-31"}),
        ("What did I write about RAG in my research vault?", {"vaults": ["research"]}),
        ("researchのボールトにある評価指標のメモ", {"vaults": ["research"]}),
        ("life保管庫のレシピ", {"vaults": ["life"]}),
        ("my notes tagged rag", {"tags": ["rag"]}),
        ("notes tagged both rag and cooking", {"tags": ["rag", "cooking"]}),
        ("Which notes have the tag hybrid-search?", {"tags": ["hybrid-search"]}),
        (
            "What did I write between January and March 2025?",
            {"created_from": "2025-01-01", "created_to": "2025-03-31"},
        ),
        ("my notes from Nov 2024 to Feb 2025", {"created_from": "2024-11-01", "created_to": "2025-02-28"}),
        ("2025年1月から3月までに書いたメモ", {"created_from": "2025-01-01", "created_to": "2025-03-31"}),
        ("2024年11月〜2025年2月のメモ", {"created_from": "2024-11-01", "created_to": "2025-02-28"}),
        ("my notes from the first half of 2025", {"created_from": "2025-01-01", "created_to": "2025-06-30"}),
        ("2024年下半期のメモ", {"created_from": "2024-07-01", "created_to": "2024-12-31"}),
        ("notes I wrote in Q3 2024", {"created_from": "2024-07-01", "created_to": "2024-09-30"}),
        ("notes I wrote before 2024-05-01", {"created_to": "2024-04-30"}),
        ("Which of my notes carry the tag cooking?", {"tags": ["cooking"]}),
        ("タグ「料理」のメモ", {"tags": ["料理"]}),
        ("research notes about BM25", {"vaults": ["research"]}),
        ("life のメモ", {"vaults": ["life"]}),
        # either tag will do: "or" between them, in words or between hashtags
        ("list everything tagged cooking or hybrid-search", {"any_tags": ["cooking", "hybrid-search"]}),
        ("notes tagged either rag or cooking", {"any_tags": ["rag", "cooking"]}),
        ("#rag or #cooking notes", {"any_tags": ["rag", "cooking"]}),
        ("#料理 または #cooking のメモ", {"any_tags": ["料理", "cooking"]}),
        ("Show me the notes I filed under #recipes", {"tags": ["recipes"]}),
    ],
)
def test_stated_filters_are_extracted(question: str, expected: dict) -> None:  # type: ignore[type-arg]
    out = run(question)
    assert out["filters"] == expected
    assert len(out["explanations"]) >= len(expected)


@pytest.mark.parametrize(
    "question",
    [
        "0-dimensional biomaterials lack inductive properties.",
        "1,000 genes are expressed in the mouse brain.",
        "Add 2 cups of water and simmer for 10 minutes.",
        "1 in 5 million in UK have abnormal PrP positivity.",
        "Incidence of the disease increased in 2005.",
        "1910年に亡くなったのは誰？",
        "1956年の「スエズ危機」の際、誰の提唱によって第一次国際連合緊急軍 (UNEF I) が創設されたか？",
        "2018年11月の時点で、ウィキデータの情報は何％で使用されていたか",
        "What is the weather today?",
        "今日ではどの地域が最大の輸出国か？",
        "How do I write C# code?",
        "# Heading with #1 issue",
        "What is research about vaults?",  # a vault name without the word vault next to it
        "How is cooking related to chemistry?",  # a known tag written without #
        "味噌汁で味噌を入れるタイミングは？",
    ],
)
def test_no_filter_is_invented(question: str) -> None:
    out = run(question)
    assert out["filters"] == {}
    assert out["structured"] is False


def test_filter_syntax_is_removed_from_the_search_text() -> None:
    out = run("What did I write about RAG in my research vault last month?")
    assert out["search_text"] == "What did I write about RAG?"
    ja = run("2024年の#料理のメモで味噌汁の作り方")
    assert "#" not in ja["search_text"] and "2024" not in ja["search_text"]
    assert "味噌汁" in ja["search_text"]


def test_metadata_listings_are_structured_and_topical_questions_are_not() -> None:
    assert run("notes tagged #cooking from 2024")["structured"] is True
    assert run("2024年の#料理のメモ")["structured"] is True
    assert run("#料理")["structured"] is True and run("#料理")["search_text"] == "料理"
    assert run("#料理 の味噌汁で味噌を入れるタイミング")["structured"] is False
    assert run("What notes did I write in 2024?")["structured"] is True
    assert run("Which notes have the tag rag?")["structured"] is True
    assert run("#rag タグが付いたノートを一覧にして")["structured"] is True
    assert run("#料理 と #cooking の両方が付いたメモ")["structured"] is True
    assert run("list everything tagged cooking or hybrid-search")["structured"] is True
    assert run("Show me the notes I filed under #recipes")["structured"] is True
    # a topic beside the conditions keeps the question on vector search, the filters applied
    assert run("Which notes are tagged rag and what do they say about chunking?")["structured"] is False
    assert run("What did I write about karaage in 2024?")["structured"] is False


def test_a_tag_that_holds_the_words_of_or_is_not_read_as_either() -> None:
    tags = ["かき氷", "夏", "color"]
    assert analyze_query("notes tagged かき氷 and 夏", known_tags=tags).filters == {"tags": ["かき氷", "夏"]}
    assert analyze_query("notes tagged color and 夏", known_tags=tags).filters == {"tags": ["color", "夏"]}
    assert analyze_query("notes tagged かき氷 or 夏", known_tags=tags).filters == {"any_tags": ["かき氷", "夏"]}


def test_language_follows_the_question() -> None:
    assert run("味噌汁の作り方")["language"] == "ja"
    assert run("How do I water the monstera?")["language"] == "en"


def test_known_tags_fix_the_spelling_and_cut_japanese_runs() -> None:
    assert run("#Cooking notes")["filters"]["tags"] == ["cooking"]
    assert run("#料理のレシピ")["filters"]["tags"] == ["料理"]
    assert run("#hybrid-search results")["filters"]["tags"] == ["hybrid-search"]


def test_ignored_dates_are_explained() -> None:
    out = run("1910年に亡くなったのは誰？")
    assert any("ignored" in e for e in out["explanations"])


AUTHORS = ["Vladimir Karpukhin", "Sewon Min", "Wen-tau Yih", "Robertson, Stephen", "山田太郎"]


@pytest.mark.parametrize(
    ("question", "authors", "structured"),
    [
        ("Which papers by Karpukhin do I have?", ["Vladimir Karpukhin"], True),
        ("papers written by vladimir karpukhin", ["Vladimir Karpukhin"], True),  # a whole name in any case
        ("Notes by Wen-tau Yih", ["Wen-tau Yih"], True),
        ("Robertson's papers", ["Robertson, Stephen"], True),  # a name stored surname first
        ("Karpukhin et al. papers from 2024", ["Vladimir Karpukhin"], True),
        ("Karpukhin の論文は？", ["Vladimir Karpukhin"], True),
        ("Sewon Min さんが書いた論文を一覧で", ["Sewon Min"], True),
        ("山田太郎さんの論文", ["山田太郎"], True),
        # an author with a topic: the filter, and the question stays on vector search
        ("What did the paper by Karpukhin say about in-batch negatives?", ["Vladimir Karpukhin"], False),
        ("Karpukhin の論文で、DPR のエンコーダは何次元？", ["Vladimir Karpukhin"], False),
    ],
)
def test_an_author_the_index_knows_is_read_from_a_cue_beside_the_name(
    question: str, authors: list[str], structured: bool
) -> None:
    a = analyze_query(question, known_authors=AUTHORS, today=TODAY)
    SearchFilters.parse(a.filters)
    assert a.filters.get("authors") == authors and a.structured is structured
    assert "Karpukhin" not in a.search_text and "Min" not in a.search_text


@pytest.mark.parametrize(
    "question",
    [
        "results sorted by min score",  # a surname alone counts only capitalised
        "papers by karpukhin",
        "What is the min of the scores?",
        "Karpukhin",  # no cue: a name alone may be the topic
        "papers by Lewis",  # not an author the index lists
    ],
)
def test_no_author_is_read_without_a_known_name_and_a_cue(question: str) -> None:
    assert "authors" not in analyze_query(question, known_authors=AUTHORS, today=TODAY).filters
