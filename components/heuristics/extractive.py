"""An extractive answer: the sentences of the retrieved chunks that best support the question.

This is the answer path that needs no language model: it selects, never writes, so it cannot
invent facts. Each sentence is scored by

* lexical coverage: the idf-weighted share of question terms it contains. Japanese terms also
  match inside compounds and across inflection (``入れる`` matches ``溶き入れる``, ``止め`` in
  ``止めて``), because MeCab keeps compound verbs as one token and the index keeps surface
  forms, so exact token matching misses the sentence that answers 「味噌を入れるタイミング」;
* semantic similarity (when an ``embed`` function is given): the cosine of question and
  sentence, rescaled so that unrelated text (~0.75 for e5) scores 0;

combined with weights ``LEXICAL_WEIGHT`` / ``SEMANTIC_WEIGHT``, with a small preference for
higher-ranked chunks. Each selected sentence keeps a ``[n]`` citation to its passage.

Notes link to notes. The words of a link (``[[Book Club 2025-10-18]]``, kept as its readable
text) name the other note, so they are no evidence that the sentence holding them answers: they
do not count toward its coverage. A sentence that links to a note whose passage is in the
context only points there ("discussion notes live in Book Club 2025-10-18"); that note's own
sentences answer, so the pointer is no candidate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from components.heuristics import answer_types
from components.text.language import KANJI, has_japanese
from components.text.messages import NO_INFO
from components.text.sentences import candidate_sentences

#: weight of the lexical coverage and of the (rescaled) cosine in a sentence's score
LEXICAL_WEIGHT = 0.7
SEMANTIC_WEIGHT = 0.3
#: e5 question-sentence cosines inside one retrieved context span about 0.80 (same topic)
#: to 0.92 (answers it); rescaled to 0..1 over that span
COSINE_FLOOR, COSINE_CEIL = 0.80, 0.92
#: score penalty per rank of the passage a sentence comes from
RANK_PENALTY = 0.05
#: bonus for a sentence holding the kind of answer the question asks for (a time, a number, a
#: field labelled with what a which/what question names)
ANSWER_TYPE_BONUS = 0.15
#: sentences scored by their cosine per question (the best by lexical score; vectors stored at
#: ingestion, or embedded when missing at ~1 ms per token on a 2-core AVX2 CPU, ~55 tokens per
#: SciFact sentence). 3 answers better than 6 and keeps most of what scoring every candidate
#: adds; fewer than 3 is worse than none, since the few scored sentences gain a bonus the others
#: cannot (figures: docs/decisions/0006-sentence-vectors-at-ingestion.md)
MAX_EMBEDDED = 3

# a sentence that opens by pointing back ("この実験で", "彼は", "This method") leans on the one before
# it, which names what it points to; a sentence that opens by naming the one before ("これを空梅雨と
# いう", "This is called ...") completes it. Either neighbour joins the chosen sentence, so an answer
# that restates the question does not lose the name the question asks for.
_POINTS_BACK = re.compile(
    r"^(?:この|その|これ[はがをらも]|それ[はがをらも]|彼[はがの]|彼女[はがの]|同[年社氏党国]|当時)"
    r"|^(?:This|These|That|Those|It|He|She|They|Its|His|Her|Their)\b"
)
_NAMES_PREVIOUS = re.compile(
    r"^(?:これ[をはが]|このような|こうした|それ[をは])[^。]{0,30}(?:いう|呼ぶ|呼ばれ|称す|称さ)"
    r"|^(?:This|It|These) (?:is|was|are|were) (?:called|known as|named)\b"
)
_HIRAGANA_TAIL = re.compile(r"[\u3041-\u309f]+$")
_JA_STOPS = "。！？"


@dataclass
class Extract:
    answer: str
    confidence: float
    used_sources: list[int]


def _ja_stem(term: str) -> str | None:
    """``入れる`` → ``入れ``: an inflecting Japanese word without its last kana, if ≥ 2 chars remain."""
    if not KANJI.search(term) or not _HIRAGANA_TAIL.search(term):
        return None
    stem = term[:-1]
    return stem if len(stem) >= 2 and KANJI.search(stem) else None


def term_weights(q_terms: Sequence[str], idf: Mapping[str, float] | None) -> dict[str, float]:
    """Each distinct question term's weight in ``term_coverage``: its idf (at least 0.1).

    A term the index has never seen is rarer than any it has: it weighs as the rarest, so that
    a question about something absent (量子コンピュータ) is not "covered" by one shared word.
    Compute once per question: the rarest idf is a scan of the whole vocabulary.
    """
    idf = idf or {}
    unseen = max(idf.values(), default=1.0)
    return {t: max(idf.get(t, unseen), 0.1) for t in set(q_terms)}


def term_coverage(
    q_terms: Sequence[str],
    text: str,
    *,
    tokenize: Callable[[str], list[str]],
    idf: Mapping[str, float] | None = None,
    text_terms: set[str] | None = None,
    weights: Mapping[str, float] | None = None,
) -> float:
    """The idf-weighted share (0..1) of the question's terms found in ``text``.

    English terms match as tokens (stemmed by the tokenizer); Japanese terms of two or more
    characters also match as substrings of the text, or by their stem (see module doc).
    ``weights`` (``term_weights`` of the same terms) saves recomputing them per text.
    """
    weight = weights if weights is not None else term_weights(q_terms, idf)
    if not weight:
        return 0.0
    have = text_terms if text_terms is not None else set(tokenize(text))
    total = sum(weight.values())
    found = 0.0
    for t in weight:
        if t in have:
            found += weight[t]
        elif has_japanese(t):
            stem = _ja_stem(t)
            if (len(t) >= 2 and t in text) or (stem is not None and stem in text):
                found += weight[t]
    return found / total


def extract_answer(
    question: str,
    passages: Sequence[str],
    *,
    tokenize: Callable[[str], list[str]],
    idf: Mapping[str, float],
    language: str = "en",
    max_sentences: int = 3,
    min_coverage: float = 0.2,
    embed: Callable[[list[str]], np.ndarray] | None = None,
    links: Sequence[Sequence[str]] = (),
    titles: Sequence[str] = (),
) -> Extract:
    """Pick up to ``max_sentences`` sentences that answer the question, cited by passage.

    ``embed`` (texts → normalised rows; pass ``Embedder.encode_queries`` so question and
    sentences share e5's symmetric "query: " space) adds semantic similarity; all candidate
    sentences and the question are embedded in one batch. Without it the score is lexical.
    A sentence must still cover ``min_coverage`` of the question's terms (or, with ``embed``,
    be semantically close), so an unrelated context yields NO_INFO rather than a guess.
    ``links`` (per passage: the notes its document links to) and ``titles`` (per passage: its
    note's title) make the scoring link-aware (module doc); without them every word counts.
    """
    no_info = Extract(NO_INFO.get(language, NO_INFO["en"]), 0.0, [])
    q_terms = tokenize(question)
    if not q_terms or not passages:
        return no_info
    weights = term_weights(q_terms, idf)
    cands: list[tuple[int, int, str, float]] = []
    sentences_of: list[list[str]] = []
    in_context = {t.casefold() for t in titles if t}
    for pi, text in enumerate(passages):
        sentences_of.append(candidate_sentences(text))
        names = link_names(links[pi] if pi < len(links) else (), titles[pi] if pi < len(titles) else "")
        for si, sent in enumerate(sentences_of[-1]):
            named = [n for n in names if n in sent]
            if any(n.casefold() in in_context for n in named):
                continue  # points to a note the context holds: that note answers for itself
            own = without_links(sent, named)
            cov = term_coverage(q_terms, own, tokenize=tokenize, weights=weights)
            cands.append((pi, si, sent, cov))
    if not cands:
        return no_info
    wants = answer_types.asked(question)
    focus = set(tokenize(answer_types.focus(question)))
    lexical = []
    for pi, _, sent, cov in cands:
        holds = any(t.held_by(sent) for t in wants) or bool(focus and focus & set(tokenize(answer_types.label(sent))))
        bonus = ANSWER_TYPE_BONUS if cov > 0 and holds else 0.0
        lexical.append((cov + bonus) * (1.0 - RANK_PENALTY * pi))
    order = sorted(range(len(cands)), key=lambda i: -lexical[i])
    sem = np.zeros(len(cands))
    if embed is not None:
        pick = [i for i in order[:MAX_EMBEDDED] if lexical[i] > 0]
        if pick:
            vecs = np.asarray(embed([question] + [cands[i][2] for i in pick]), dtype=np.float32)
            cos = vecs[1:] @ vecs[0]
            sem[pick] = np.clip((cos - COSINE_FLOOR) / (COSINE_CEIL - COSINE_FLOOR), 0.0, 1.0)
    lw, sw = (LEXICAL_WEIGHT, SEMANTIC_WEIGHT) if embed is not None else (1.0, 0.0)
    scored: list[tuple[float, int, int, str, float]] = []
    for i, (pi, si, sent, cov) in enumerate(cands):
        if lexical[i] <= 0:
            continue  # similarity without a shared term is no evidence
        score = lw * lexical[i] + sw * float(sem[i]) * (1.0 - RANK_PENALTY * pi)
        scored.append((score, pi, si, sent, cov))
    scored.sort(key=lambda x: (-x[0], x[1], x[2]))
    if not scored or max(x[4] for x in scored[:max_sentences]) < min_coverage:
        return no_info
    best = scored[0][0]
    chosen = [x for x in scored[:max_sentences] if x[0] >= best * 0.6]
    chosen += _neighbours(chosen, sentences_of)
    chosen += _record_fields(chosen, sentences_of, focus, tokenize)
    # passages in the order of their best sentence, sentences of one passage in reading order
    first: dict[int, int] = {}
    for rank, x in enumerate(chosen):
        first.setdefault(x[1], rank)
    chosen.sort(key=lambda x: (first[x[1]], x[2]))
    answer = join_cited([(s, pi + 1) for _, pi, _, s, _ in chosen], language)
    return Extract(answer, round(min(1.0, best), 3), sorted({pi + 1 for _, pi, _, _, _ in chosen}))


def _record_fields(
    chosen: Sequence[tuple[float, int, int, str, float]],
    sentences_of: Sequence[Sequence[str]],
    focus: set[str],
    tokenize: Callable[[str], list[str]],
) -> list[tuple[float, int, int, str, float]]:
    """Field lines labelled with what the question asks for, from the records chosen lines belong to.

    A note records one event as labelled lines ("When: 18 October 2025", "Book: …"). The line
    that matches the question's conditions is often not the one labelled with what it asks for
    ("Which book … in October 2025?"), so a chosen field line brings its passage's field lines
    whose label names the question's focus.
    """
    if not focus:
        return []
    taken = {(pi, si) for _, pi, si, _, _ in chosen}
    extra: list[tuple[float, int, int, str, float]] = []
    for score, pi, _, sent, _ in chosen:
        if not answer_types.label(sent):
            continue
        for si, other in enumerate(sentences_of[pi]):
            if (pi, si) not in taken and focus & set(tokenize(answer_types.label(other))):
                extra.append((score, pi, si, other, 0.0))
                taken.add((pi, si))
    return extra


def link_names(links: Sequence[str], own_title: str) -> list[str]:
    """The readable names of a passage's links, longest first (so that "A B" goes before "A"),
    without its own note's title (a note naming itself is not pointing elsewhere)."""
    own = own_title.casefold()
    return sorted({n for n in (str(x).strip() for x in links) if n and n.casefold() != own}, key=len, reverse=True)


def without_links(sentence: str, names: Sequence[str]) -> str:
    """The sentence with the names of the notes it links to blanked out."""
    for name in names:
        sentence = sentence.replace(name, " ")
    return sentence


def _neighbours(
    chosen: Sequence[tuple[float, int, int, str, float]], sentences_of: Sequence[Sequence[str]]
) -> list[tuple[float, int, int, str, float]]:
    """The sentences a chosen one leans on (the one before, when it points back) or that complete
    it (the one after, when that names it), not chosen already, with the chosen one's score."""
    taken = {(pi, si) for _, pi, si, _, _ in chosen}
    extra: list[tuple[float, int, int, str, float]] = []
    for score, pi, si, sent, _ in chosen:
        sents = sentences_of[pi]
        if si > 0 and _POINTS_BACK.search(sent) and (pi, si - 1) not in taken:
            extra.append((score, pi, si - 1, sents[si - 1], 0.0))
            taken.add((pi, si - 1))
        if si + 1 < len(sents) and _NAMES_PREVIOUS.search(sents[si + 1]) and (pi, si + 1) not in taken:
            extra.append((score, pi, si + 1, sents[si + 1], 0.0))
            taken.add((pi, si + 1))
    return extra


def join_cited(sentences: Sequence[tuple[str, int]], language: str) -> str:
    """Sentences with their citations: "… dry. [1] …" in English, 「…溶き入れる[1]。…」 in Japanese.

    Japanese puts the reference before a full-width full stop and no space between sentences,
    so the marker stays attached to the sentence it supports instead of opening the next one.
    A sentence without one (an English line quoted in a Japanese answer, a list item) keeps
    "text [n]" and a space after it, so two sentences never run together.
    """
    out = ""
    for sentence, n in sentences:
        if language == "ja" and sentence[-1:] in _JA_STOPS:
            piece = f"{sentence[:-1]}[{n}]{sentence[-1]}"
        else:
            piece = f"{sentence} [{n}]"
        if out and not (language == "ja" and out[-1] in _JA_STOPS):
            out += " "
        out += piece
    return out
