"""Pages that are not in the store are ranked in memory: rank-bm25 over the index's own tokenizer,
fused with the order the source gave them."""

from __future__ import annotations

from rank_bm25 import BM25Okapi

from components.retrieval.in_memory import bm25_scores, by_words, rank
from components.text.tokenizer import Tokenizer

QUESTION = "When does the Kamogawa odori festival start?"
PAGES = [
    "Kyoto travel guide: temples, gardens and food markets worth a visit.",  # the provider's first
    "Weather in Kyoto this week: mild and sunny.",
    "The Kamogawa Odori festival starts on 1 May at the Pontocho Kaburenjo theatre.",
]


def test_scores_are_rank_bm25s_over_the_index_tokenizer() -> None:
    tok = Tokenizer()
    expected = BM25Okapi([tok(p) for p in PAGES]).get_scores(tok(QUESTION))
    assert bm25_scores(QUESTION, PAGES, tok) == [float(s) for s in expected]
    assert bm25_scores("", PAGES, tok) == [0.0, 0.0, 0.0]


def test_the_page_holding_the_questions_words_moves_up_and_ties_keep_the_sources_order() -> None:
    tok = Tokenizer()
    assert rank(QUESTION, PAGES, tok) == [0, 2, 1]
    assert rank("nothing in common here", PAGES, tok) == [0, 1, 2]
    assert rank(QUESTION, [], tok) == []


def test_a_documents_chunks_rank_by_their_words_alone_ties_in_reading_order() -> None:
    tok = Tokenizer()
    # the reading order says nothing of relevance: the chunk holding the words comes first, wherever it is
    assert by_words(QUESTION, PAGES, tok) == [2, 0, 1]
    assert by_words("nothing in common here", PAGES, tok) == [0, 1, 2]
