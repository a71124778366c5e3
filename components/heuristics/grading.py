"""Graders for the no-LLM path: is the context relevant, is the answer grounded, is it useful.

With an LLM these are judgement calls; without one they are calibrated measurements:

* ``grade_context``: a logistic model over two pieces of retrieval evidence per chunk — the
  dense cosine of question and chunk (multilingual-e5-small) and the idf-weighted share of
  question terms the chunk contains — fitted by ``evals/calibrate_nonllm.py`` on SciFact train
  and JSQuAD (positives: a query with its judged document's chunks; negatives: a query with the
  top chunks retrieved for another query). The context is relevant when its best chunk is.
* ``check_support``: each answer sentence (``[n]`` citations stripped) must be found in the
  context, lexically (its content words inside one passage) or semantically (cosine to the
  closest context sentence over a calibrated threshold).
* ``grade_answer``: the question–answer similarity (the length-weighted mean of the question's
  cosines to the answer's sentences) over a threshold; the fixed "no information" answers are
  never useful. ``numbers_unmet`` finds a number the question names (a year, a date, a dose)
  that no passage the answer cites states, for a warning beside the answer; an answer from
  passages that write it only in a link to another note answers from the wrong note.

Every verdict carries a 0..1 score and a reason that Studio and ``--debug`` show.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from components.heuristics import answer_types
from components.heuristics.extractive import link_names, term_coverage, term_weights, without_links
from components.models.calibration import FALLBACK, Calibration
from components.text.messages import NO_INFO
from components.text.sentences import split_sentences

log = logging.getLogger(__name__)

Embed = Callable[[list[str]], np.ndarray]
Tokenize = Callable[[str], list[str]]

# --- context relevance: p = sigmoid(b0 + b_dense * cosine + b_lex * coverage) --------------------
# The dense coefficients belong to the embedding model (components/models/calibration.py); this
# lexical-only model serves when no dense cosine is available for any chunk (dense retrieval
# down, no embedder) and does not depend on one (fitted with the model in calibration.py, which
# says why it was not replaced by the tune-split fit).
CONTEXT_LEX_B0 = -4.24
CONTEXT_LEX_B = 15.73
#: relevance probability at or above which the context counts as relevant
CONTEXT_THRESHOLD = 0.5
#: chunks graded (the top of the ranking; lower ones rarely change the verdict)
CONTEXT_TOP = 5

# --- answer support ---------------------------------------------------------------------------
#: share of an answer sentence's content terms that one passage must contain (lexical support)
SUPPORT_LEXICAL = 0.8
#: share of answer sentences that must be supported for the answer to count as grounded
SUPPORT_SHARE = 1.0

_CITATION = re.compile(r"\s*\[\d+(?:\s*[,，、-]\s*\d+)*\]")
_NO_ANSWER = {
    *NO_INFO.values(),
}
_tokenizer_lock = threading.Lock()
_default_tokenizer: Tokenize | None = None


def _tokenize_default() -> Tokenize:
    """The index's tokenizer, built once, for callers that do not pass theirs."""
    global _default_tokenizer
    with _tokenizer_lock:
        if _default_tokenizer is None:
            from components.text.tokenizer import Tokenizer

            _default_tokenizer = Tokenizer()
        return _default_tokenizer


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, x))))


# ============================================================================ context
@dataclass
class ContextGrade:
    """Whether the retrieved chunks can answer the question, with per-chunk probabilities."""

    relevant: bool
    score: float
    chunk_scores: list[float] = field(default_factory=list)
    reason: str = ""


def chunk_relevance(dense: float | None, coverage: float, calibration: Calibration = FALLBACK) -> float:
    """Probability that one chunk is relevant, from its dense cosine and term coverage."""
    if dense is None:
        return _sigmoid(CONTEXT_LEX_B0 + CONTEXT_LEX_B * coverage)
    cal = calibration
    return _sigmoid(cal.context_b0 + cal.context_b_dense * dense + cal.context_b_lex * coverage)


def grade_context(
    question: str,
    results: Sequence[Mapping[str, Any]],
    *,
    question_vector: np.ndarray | None = None,
    embed: Embed | None = None,
    tokenize: Tokenize | None = None,
    idf: Mapping[str, float] | None = None,
    calibration: Calibration = FALLBACK,
    threshold: float = CONTEXT_THRESHOLD,
) -> ContextGrade:
    """Grade search results (``hit_to_result`` dicts) for a question.

    The dense cosine comes from ``retriever_scores["dense"]``; a chunk found only by BM25 gets
    one computed from ``question_vector`` (the query vector) and ``embed`` (the *passage*
    encoder, e.g. ``Embedder.encode_documents``, since stored chunk vectors are passages) when
    both are given, else it is graded lexically. ``idf`` is the BM25 index's; without it every
    term weighs the same (coverage is then a little higher than calibrated).
    """
    top = list(results[:CONTEXT_TOP])
    if not top:
        return ContextGrade(False, 0.0, [], "no results")
    tok = tokenize or _tokenize_default()
    q_terms = tok(question)
    dense: list[float | None] = []
    for r in top:
        rs = r.get("retriever_scores") or {}
        d = rs.get("dense")
        dense.append(float(d) if isinstance(d, (int, float)) else None)
    missing = [i for i, d in enumerate(dense) if d is None]
    if missing and question_vector is not None and embed is not None:
        texts = [chunk_text(top[i]) for i in missing]
        vecs = np.asarray(embed(texts), dtype=np.float32)
        q = np.asarray(question_vector, dtype=np.float32).ravel()
        for i, v in zip(missing, vecs @ q, strict=True):
            dense[i] = float(v)
    present = [d for d in dense if d is not None]
    # a chunk that dense search did not return scores at most what the last one it returned
    # scored: use that bound rather than grading it on words alone (too lenient on its own)
    bound = min(present) if present else None
    scores: list[float] = []
    covs: list[float] = []
    weights = term_weights(q_terms, idf)
    for r, d in zip(top, dense, strict=True):
        cov = term_coverage(q_terms, chunk_text(r), tokenize=tok, weights=weights)
        covs.append(cov)
        scores.append(chunk_relevance(d if d is not None else bound, cov, calibration))
    best = max(range(len(scores)), key=lambda i: scores[i])
    p = scores[best]
    d_best = dense[best]
    evidence = f"cosine {d_best:.3f}, " if d_best is not None else ""
    reason = (
        f"best chunk #{best + 1}: {evidence}{covs[best]:.0%} of question terms; "
        f"p(relevant)={p:.2f} {'>=' if p >= threshold else '<'} {threshold}"
    )
    return ContextGrade(p >= threshold, round(p, 4), [round(s, 4) for s in scores], reason)


def chunk_text(r: Mapping[str, Any]) -> str:
    """A result's text with its title (and aliases, the note's other names) in front: the title is
    often the only place a note names its subject, as the relevance model was fitted."""
    title = r.get("title") or ""
    text = str(r.get("text") or "")
    head = " ".join([title, *(str(a) for a in r.get("aliases") or [])]).strip()
    return f"{head}\n{text}" if head and head not in text[: len(head) + 5] else text


# ============================================================================ support
@dataclass
class Support:
    """Whether every claim of the answer is found in the context; the ones that are not."""

    grounded: bool
    score: float
    unsupported: list[str] = field(default_factory=list)
    reason: str = ""


def answer_sentences(answer: str) -> list[str]:
    """The answer's sentences without ``[n]`` citations, markdown bullets or blank pieces."""
    text = _CITATION.sub("", answer)
    out = []
    for line in text.split("\n"):
        for s in split_sentences(line):
            s = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", s).strip().strip("*")
            if len(s.strip()) >= 2:
                out.append(s.strip())
    return out


def is_no_answer(answer: str) -> bool:
    """True for the fixed "no information" answers (the extractive NO_INFO texts)."""
    a = _CITATION.sub("", answer).strip()
    return not a or a in _NO_ANSWER


def check_support(
    answer: str,
    passages: Sequence[str],
    *,
    embed: Embed | None,
    tokenize: Tokenize | None = None,
    threshold: float = FALLBACK.support_cosine,
) -> Support:
    """Sentence-level grounding of an answer in the passages it cites.

    Lexical support is tried first and costs no model call (an extractive answer always
    passes it); only the remaining sentences and the context sentences are embedded, in one
    batch. ``embed`` should be symmetric (``Embedder.encode_queries``: e5's "query: " prefix on
    both sides, as e5 recommends for similarity between texts of the same kind).
    """
    if is_no_answer(answer):
        return Support(True, 1.0, [], "fixed no-information answer")
    sents = answer_sentences(answer)
    if not sents:
        return Support(True, 1.0, [], "nothing to check")
    if not passages:
        return Support(False, 0.0, sents, "no context to support the answer")
    tok = tokenize or _tokenize_default()
    passage_terms = [set(tok(p)) for p in passages]
    joined = "\n".join(passages)
    pending: list[int] = []
    supported = [False] * len(sents)
    for i, s in enumerate(sents):
        terms = set(tok(s))
        if not terms:
            supported[i] = True  # "Yes." carries no claim of its own
            continue
        if _normalise(s) in _normalise(joined):
            supported[i] = True
            continue
        best = max(len(terms & pt) / len(terms) for pt in passage_terms)
        if best >= SUPPORT_LEXICAL:
            supported[i] = True
        else:
            pending.append(i)
    how = "lexical"
    if pending and embed is not None:
        ctx = [c for p in passages for c in _context_sentences(p)]
        if ctx:
            vecs = np.asarray(embed([sents[i] for i in pending] + ctx), dtype=np.float32)
            a, c = vecs[: len(pending)], vecs[len(pending) :]
            best_cos = (a @ c.T).max(axis=1)
            for i, cos in zip(pending, best_cos, strict=True):
                supported[i] = bool(cos >= threshold)
            how = "lexical+semantic"
    unsupported = [s for s, ok in zip(sents, supported, strict=True) if not ok]
    share = 1.0 - len(unsupported) / len(sents)
    grounded = share >= SUPPORT_SHARE
    reason = f"{len(sents) - len(unsupported)}/{len(sents)} sentences supported ({how})"
    return Support(grounded, round(share, 4), unsupported, reason)


def _normalise(s: str) -> str:
    return re.sub(r"[\s*_`]+", "", s).lower()


def _context_sentences(passage: str) -> list[str]:
    out = []
    for line in passage.split("\n"):
        for s in split_sentences(line):
            s = re.sub(r"^\s*(?:[-*•>#]+|\d+[.)])\s*", "", s).strip()
            if len(s) >= 4:
                out.append(s)
    return out


# ============================================================================ answer
@dataclass
class AnswerGrade:
    """Whether the answer addresses the question."""

    useful: bool
    score: float
    reason: str = ""


#: a number as written (full-width digits are folded first): 2026, 1:47, 3.5, 10,000
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
#: digits a question's number needs to count as a constraint: "2カ国答えなさい", "name two" count
#: the answers asked for, while years, dates, doses and amounts have two or more
CONSTRAINT_DIGITS = 2


def numbers_unmet(question: str, passages: Sequence[Mapping[str, Any]]) -> list[str]:
    """The numbers ``question`` names that none of ``passages`` does (in its text, title or section).

    A number in a question is a constraint (a year, a date, a week, a dose), and an answer from
    passages that never state it answers another question: "my finish time in the 2026 full
    marathon" from a note about 2025's half marathon. The words of a passage's links name other
    notes, so a number there (``[[2026年の目標]]``) does not count. A number is held when it is
    part of one the passages write (a question's "020年" for 2020 is a typo, not another year).
    A claim (no question: "10% of SIDS deaths …") is checked, not constrained, by its numbers.
    """
    if not answer_types.is_question(question):
        return []  # a claim to check: passages that state another number refute it, and answer
    asked = dict.fromkeys(
        n
        for n in _NUMBER.findall(unicodedata.normalize("NFKC", question))
        if sum(ch.isdigit() for ch in n) >= CONSTRAINT_DIGITS
    )
    if not asked or not passages:
        return []
    held: set[str] = set()
    for p in passages:
        names = link_names(p.get("links") or (), str(p.get("title") or ""))
        text = " ".join(
            [without_links(str(p.get("text") or ""), names), str(p.get("title") or ""), str(p.get("section") or "")]
        )
        held.update(_NUMBER.findall(unicodedata.normalize("NFKC", text)))
    return [n for n in asked if not any(n in h for h in held)]


def numbers_linked(numbers: Sequence[str], passages: Sequence[Mapping[str, Any]]) -> list[str]:
    """Those of ``numbers`` that the passages write only in the names of notes they link to.

    "Next goal: a full marathon under 4 hours — written up in [[2026年の目標]]" points to the note
    about 2026; it is not that note. An answer drawn from it for a question about 2026 answers
    from the wrong note, where a passage that never mentions the year may still hold the figure
    asked for (a survey dated 2000 for a question that says 2001).
    """
    named: set[str] = set()
    for p in passages:
        for name in link_names(p.get("links") or (), str(p.get("title") or "")):
            named.update(_NUMBER.findall(unicodedata.normalize("NFKC", name)))
    return [n for n in numbers if any(n in h for h in named)]


def grade_answer(
    question: str,
    answer: str,
    *,
    embed: Embed | None,
    tokenize: Callable[[str], list[str]],
    idf: Mapping[str, float],
    calibration: Calibration = FALLBACK,
    threshold: float | None = None,
    cited: Sequence[Mapping[str, Any]] = (),
) -> AnswerGrade:
    """Whether the answer addresses the question: p(useful) from the question–answer cosine and
    the idf-weighted share of the question's terms the answer holds; "no information" answers
    are not useful.

    The cosine is the mean of the question's cosines to the answer's sentences, weighted by
    sentence length (an extractive answer's sentences were embedded while extracting, so grading
    embeds nothing new). Coverage carries most of the weight: another question's answer is often
    as close in cosine (e5 puts unrelated text near 0.8) but shares almost none of the terms
    (coefficients and figures: ``components/models/calibration.py``). ``threshold`` is the
    probability to reach (default 0.5). A number the question names and no cited passage states
    (``numbers_unmet``; ``cited``: the passages the answer cites, with ``text``, ``title``,
    ``section``, ``links``) does not make the answer useless: the nearest figure the notes hold is
    what a user would rather read, with a warning (``grade_answer`` node). It does when the cited
    passages write it only in a link to another note (``numbers_linked``).

    ``embed`` as for ``check_support`` (symmetric; with ``Embedder.encode_queries`` the question
    and an extractive answer's sentences come from its cache). Without it, any non-empty answer
    that is not a no-information answer counts as useful (the extractive path only answers from
    sentences that matched the question).
    """
    if is_no_answer(answer):
        return AnswerGrade(False, 0.0, "no-information answer")
    if (kind := answer_types.missing(question, _CITATION.sub("", answer))) is not None:
        return AnswerGrade(False, 0.0, f"the question asks for a {kind.name}; the answer holds none")
    if linked := numbers_linked(numbers_unmet(question, cited), cited):
        why = f"the question names {', '.join(linked)}; the passages the answer cites only link to a note about it"
        return AnswerGrade(False, 0.0, why)
    sents = answer_sentences(answer)
    if embed is None:
        return AnswerGrade(True, 0.5, "no embedder: non-empty answer assumed useful")
    if not sents:
        return AnswerGrade(False, 0.0, "answer has no sentence")
    v = np.asarray(embed([question, *sents]), dtype=np.float32)
    weights = np.array([len(s) for s in sents], dtype=np.float32)
    cos = float((v[1:] @ v[0]) @ weights / weights.sum())
    q_terms = tokenize(question)
    # a question of stop words only has no term to miss
    cov = (
        term_coverage(q_terms, " ".join(sents), tokenize=tokenize, weights=term_weights(q_terms, idf))
        if q_terms
        else 1.0
    )
    cal = calibration
    p = _sigmoid(cal.answer_b0 + cal.answer_b_cos * cos + cal.answer_b_cov * cov)
    threshold = 0.5 if threshold is None else threshold
    reason = f"p(useful)={p:.2f} from question-answer cosine {cos:.3f} and {cov:.0%} of the question's terms"
    return AnswerGrade(p >= threshold, round(p, 4), f"{reason} vs threshold {threshold}")
