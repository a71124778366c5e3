"""Query expansion by pseudo-relevance feedback (RM3-style), the no-LLM stand-in for HyDE.

When the first retrieval's context was graded not relevant, the graph rewrites the query. An
LLM would write a hypothetical answer (HyDE); without one, the top BM25 chunks of the question
supply the vocabulary instead: terms frequent in those chunks and rare in the collection
(term frequency share × idf, summed over the feedback chunks with a weight for each chunk's
BM25 score) are appended to the question. Question terms and stop words are excluded; Japanese
works because the terms come from the same tokenizer as the index.

Expansion terms are shown as surface words (``biomaterials``, not the stem ``biomateri``) so the
expanded text also reads sensibly for the dense retriever and in Studio.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from components.stores.corpus import Corpus, Selects
from components.stores.lexical import search_text

log = logging.getLogger(__name__)

_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*[A-Za-z0-9]|[A-Za-z]")
#: expansion terms must be at least this long (single letters and digits are noise)
MIN_TERM_CHARS = 2


@dataclass
class Expansion:
    """The expanded query text and the terms added to the question (empty when none)."""

    text: str
    terms: list[str] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)


def expand_query(
    question: str,
    *,
    corpus: Corpus,
    tokenizer: Callable[[str], list[str]],
    fb_docs: int = 3,
    fb_terms: int = 8,
    where: Sequence[Selects] = (),
    repeat_question: int = 2,
) -> Expansion:
    """The question followed by ``fb_terms`` feedback terms from its top ``fb_docs`` BM25 chunks.

    ``repeat_question`` keeps the original terms weighted above the added ones (the RM3
    interpolation with the original query, expressed as repetition because BM25 here weighs
    query tokens by count); ``where`` holds the filter's conditions, so feedback comes only from
    chunks the user's filters admit.
    """
    q_tokens = tokenizer(question)
    if not q_tokens or corpus.size == 0:
        return Expansion(question)
    hits = corpus.top(q_tokens, limit=fb_docs, where=where)
    if not hits:
        return Expansion(question)
    idf = corpus.idf
    q_set = set(q_tokens)
    top = max(score for _, score in hits) or 1.0
    weights: dict[str, float] = {}
    surface: dict[str, Counter[str]] = {}
    for payload, score in hits:
        text = search_text(payload)
        toks = tokenizer(text)
        if not toks:
            continue
        counts = Counter(toks)
        doc_weight = score / top
        for t, c in counts.items():
            if t in q_set or len(t) < MIN_TERM_CHARS or t.isdigit():
                continue
            weights[t] = weights.get(t, 0.0) + doc_weight * (c / len(toks)) * max(idf.get(t, 0.0), 0.0)
        _collect_surfaces(text, tokenizer, surface)
    chosen = [t for t, w in sorted(weights.items(), key=lambda x: (-x[1], x[0]))[:fb_terms] if w > 0]
    if not chosen:
        return Expansion(question)
    words = [surface[t].most_common(1)[0][0] if t in surface else t for t in chosen]
    total = sum(weights[t] for t in chosen)
    text = " ".join([question] * max(1, repeat_question) + words)
    return Expansion(text, words, {w: round(weights[t] / total, 4) for w, t in zip(words, chosen, strict=True)})


def _collect_surfaces(text: str, tokenizer: Callable[[str], list[str]], out: dict[str, Counter[str]]) -> None:
    """Map each stemmed Latin token back to the words it came from (stems are cached, cheap)."""
    for w in _LATIN_WORD.findall(text):
        toks = tokenizer(w)
        if len(toks) == 1:
            out.setdefault(toks[0], Counter())[w.lower()] += 1
