"""Passages that are not in the store, ranked where they are: rank-bm25 over the project's tokenizer.

The store's BM25 serves indexed chunks. A handful of web pages fetched for one question have no
index and need none: rank-bm25's ``BM25Okapi`` is built over their words as the index reads words
(``components.text.tokenizer``: stems, MeCab surface forms, stop words), and the question is scored
against them. Its order is fused with the order the source gave them (a search provider's own
relevance) by reciprocal rank fusion, so that a page holding the question's words moves ahead of
one only the provider liked, and neither signal's scale matters. Ties keep the source's order.
The chunks of a document given with a question are ranked by BM25 alone (``by_words``): their
reading order says nothing of relevance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rank_bm25 import BM25Okapi

#: reciprocal rank fusion's constant (decision 0003's RRF): on a handful of pages it weighs both orders alike
RRF_K = 60


def bm25_scores(question: str, texts: Sequence[str], tokenize: Callable[[str], list[str]]) -> list[float]:
    """Each text's BM25 score for ``question``; all 0 when the question or every text has no words."""
    docs = [tokenize(t) for t in texts]
    query = tokenize(question)
    if not query or not any(docs):
        return [0.0] * len(texts)
    return [float(s) for s in BM25Okapi(docs).get_scores(query)]


def by_words(question: str, texts: Sequence[str], tokenize: Callable[[str], list[str]]) -> list[int]:
    """The indexes of ``texts`` by BM25 alone, equal scores in the order given: for texts whose order
    says nothing of relevance (a document's chunks in reading order)."""
    scores = bm25_scores(question, texts, tokenize)
    return sorted(range(len(texts)), key=lambda i: -scores[i])


def rank(question: str, texts: Sequence[str], tokenize: Callable[[str], list[str]]) -> list[int]:
    """The indexes of ``texts`` (given in the source's order) in fused order: the source's rank and
    BM25's, each counting 1 / (RRF_K + rank)."""
    by_bm25 = by_words(question, texts, tokenize)
    bm25_rank = {i: r for r, i in enumerate(by_bm25, start=1)}
    fused = {i: 1 / (RRF_K + i + 1) + 1 / (RRF_K + bm25_rank[i]) for i in range(len(texts))}
    return sorted(range(len(texts)), key=lambda i: (-fused[i], i))
