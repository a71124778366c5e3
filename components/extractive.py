"""An extractive answer: the sentences of the retrieved chunks that best support the question.

This is the answer path that needs no language model: it selects, never writes, so it cannot
invent facts. Sentences are scored by the idf-weighted share of question terms they contain,
with a small preference for higher-ranked chunks; each selected sentence keeps a ``[n]``
citation to its source.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from components.chunker import split_sentences

NO_INFO = {"ja": "情報が見つかりませんでした。", "en": "No information found in the indexed documents."}


@dataclass
class Extract:
    answer: str
    confidence: float
    used_sources: list[int]


def extract_answer(
    question: str,
    passages: Sequence[str],
    *,
    tokenize: Callable[[str], list[str]],
    idf: Mapping[str, float],
    language: str = "en",
    max_sentences: int = 3,
    min_coverage: float = 0.2,
) -> Extract:
    """Pick up to ``max_sentences`` sentences covering the question's terms, cited by passage."""
    q_terms = set(tokenize(question))
    if not q_terms or not passages:
        return Extract(NO_INFO.get(language, NO_INFO["en"]), 0.0, [])
    weight = {t: max(idf.get(t, 1.0), 0.1) for t in q_terms}
    total = sum(weight.values())
    scored: list[tuple[float, int, int, str]] = []
    for pi, text in enumerate(passages):
        for si, sent in enumerate(split_sentences(text)):
            s = " ".join(sent.split())
            if len(s) < 8:
                continue
            terms = set(tokenize(s))
            coverage = sum(weight[t] for t in q_terms & terms) / total
            if coverage <= 0:
                continue
            scored.append((coverage * (1.0 - 0.05 * pi), pi, si, s))
    scored.sort(key=lambda x: (-x[0], x[1], x[2]))
    if not scored or scored[0][0] < min_coverage:
        return Extract(NO_INFO.get(language, NO_INFO["en"]), 0.0, [])
    best = scored[0][0]
    chosen = [x for x in scored[:max_sentences] if x[0] >= best * 0.5]
    chosen.sort(key=lambda x: (x[1], x[2]))
    sep = "" if language == "ja" else " "
    answer = sep.join(f"{s} [{pi + 1}]" for _, pi, _, s in chosen)
    return Extract(answer, round(min(1.0, best), 3), sorted({pi + 1 for _, pi, _, _ in chosen}))
