"""The guardrails as the query graph's nodes use them: one set of NeMo rails per Components, and
the raw text of a redacted question, kept in this process for retrieval only.

A redacted question (personal data replaced by ``<PERSON>``, ``<PHONE_NUMBER>`` ...) is what the
run's state holds, so it is what is logged, cached, embedded for the cache, stored in the thread
and sent to a remote LLM. Retrieval runs in this process and searches better with the real
words, so the raw text stays here, keyed by the run's request id, and never enters the state:
``for_retrieval`` swaps it back into the queries just before the index is searched.
"""

from __future__ import annotations

import re
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from components.factory import Components
from components.models.embedders import Embedder
from components.retrieval.hits import HitRecord
from components.text import messages
from graph.context import Context
from graph.state import Asker, Passage
from guardrails.documents import SCORE_KEY, Withheld, rescored, screen, withholds
from guardrails.injection import detector_for
from guardrails.input import InputVerdict, check_input, curated_injection
from guardrails.output import OutputVerdict, check_output
from guardrails.policy import POLICY
from guardrails.rails import Rails

_PLACEHOLDER = re.compile(r"<[A-Z][A-Z_]*>")
_RAILS: weakref.WeakKeyDictionary[Components, Rails] = weakref.WeakKeyDictionary()
_RAILS_LOCK = threading.Lock()


def _input_check(embedder: Embedder, text: str, language: str) -> InputVerdict:
    # the curated patterns first (microseconds), then the classifier, whose embedding of a
    # question is the one routing reads from the embedder's query cache
    checks = (curated_injection, detector_for(embedder).as_check())
    return check_input(text, language=language, injection_checks=checks)


def _output_check(answer: str, passages: Sequence[str], markers: Sequence[str], language: str) -> OutputVerdict:
    return check_output(answer, context=passages, markers=markers, language=language)


def rails_of(c: Components) -> Rails:
    """The NeMo rails of ``c``, built once. They hold ``c``'s embedder, never ``c`` itself: a
    value that refers to its weak key keeps the entry, and so ``c``, alive for good."""
    with _RAILS_LOCK:
        rails = _RAILS.get(c)
        if rails is None:
            rails = Rails(input_check=partial(_input_check, c.embedder), output_check=_output_check)
            _RAILS[c] = rails
        return rails


def prompt_markers(ctx: Context) -> list[str]:
    """The first line of each system prompt in use: an answer repeating one has leaked its prompt."""
    markers = []
    for name in ("route_prompt", "rewrite_prompt", "grade_context_prompt", "generate_prompt", "direct_prompt"):
        first = next((line.strip() for line in getattr(ctx, name).splitlines() if line.strip()), "")
        if len(first) >= 20:  # short lines ("Question:") also appear in ordinary answers
            markers.append(first)
    return markers


def stream_screen(passages: Sequence[str], markers: Sequence[str]) -> Callable[[str], str | None]:
    """The output rail's check for streamed answers, one sentence at a time, before a client sees it.

    Personal data the passages do not hold is masked in the sentence; a leaked prompt line or
    other instruction text (checked on everything streamed so far, so a leak split over sentences
    is caught) withholds the sentence and the rest of the stream. The whole answer is checked
    again by the ``guard_output`` node, whose verdict is the run's final answer.
    """
    seen: list[str] = []

    def screen(sentence: str) -> str | None:
        so_far = "".join(seen) + sentence
        if check_output(so_far, context=passages, markers=markers).flagged:
            return None
        seen.append(sentence)
        if not POLICY.redact_unsupported_pii:
            return sentence
        return check_output(sentence, context=passages, markers=()).text

    return screen


# --------------------------------------------------------------------------- raw questions


@dataclass(frozen=True)
class _Raw:
    redacted: str
    raw: str
    #: (placeholder as it appears in the redacted text, the original words), in text order
    swaps: tuple[tuple[str, str], ...]
    at: float


class RawQuestions:
    """The raw text of this process's redacted questions, by request id, for a bounded time."""

    def __init__(self, *, ttl_seconds: float = 600.0, max_items: int = 1024) -> None:
        self._items: OrderedDict[str, _Raw] = OrderedDict()
        self._ttl = ttl_seconds
        self._max = max_items
        self._lock = threading.Lock()

    def remember(self, request_id: str, verdict: InputVerdict, raw: str) -> None:
        # the placeholders of the redacted text stand, in order, for the entities in text order
        words = [raw[e.start : e.end] for e in sorted(verdict.pii, key=lambda e: e.start)]
        swaps = tuple(zip(_PLACEHOLDER.findall(verdict.redacted), words, strict=False))
        with self._lock:
            self._items[request_id] = _Raw(verdict.redacted, raw, swaps, time.monotonic())
            cutoff = time.monotonic() - self._ttl
            while self._items and (len(self._items) > self._max or next(iter(self._items.values())).at < cutoff):
                self._items.popitem(last=False)

    def forget(self, request_id: str) -> None:
        with self._lock:
            self._items.pop(request_id, None)

    def restore(self, request_id: str, query: str) -> str:
        """``query`` with this request's placeholders turned back into the words they replaced."""
        with self._lock:
            item = self._items.get(request_id)
        if item is None:
            return query
        if query.strip() == item.redacted.strip():
            return item.raw
        # the whole question inside a longer query (PRF repeats it), then any placeholders a
        # rewrite kept, filled in order
        query = query.replace(item.redacted, item.raw)
        for placeholder, words in item.swaps:
            query = query.replace(placeholder, words, 1)
        return query


RAW_QUESTIONS = RawQuestions()


def for_retrieval(state: Asker, queries: Sequence[str]) -> list[str]:
    """The queries as the index should see them: a redacted question's own words restored."""
    request_id = state.get("request_id") or ""
    guard = state.get("guardrail")
    if not guard or not guard["pii"]:
        return list(queries)
    return [RAW_QUESTIONS.restore(request_id, q) for q in queries]


def placeholders(text: str) -> list[str]:
    """The redaction placeholders in ``text`` (``<PERSON>``, ...), each once, in order."""
    return list(dict.fromkeys(_PLACEHOLDER.findall(text)))


def is_placeholder(value: str) -> bool:
    """Whether ``value`` is a redaction placeholder (a filter value standing for redacted words)."""
    return bool(_PLACEHOLDER.fullmatch(value))


def raw_words(state: Asker, text: str) -> str:
    """``text`` as the models inside this process read it: a redacted question's words restored.

    The retrievers, the reranker and the non-LLM graders and extraction run in this process and
    keep nothing, so they read the names a question asked about ("グスタフ・マーラーの妻は？");
    what is logged, cached, checkpointed or sent to an LLM keeps the placeholders.
    """
    return for_retrieval(state, [text])[0]


# --------------------------------------------------------------------------- documents as input


def screen_passages(
    passages: Sequence[Passage],
    scores: Sequence[float | None],
    *,
    threshold: float = POLICY.document_injection_threshold,
) -> tuple[list[Passage], list[str]]:
    """Passages that may reach generation, renumbered, and a note for each one withheld.

    ``scores`` are the passages' injection scores (the highest of their chunks' at ingestion,
    or a web page's scan); a passage at or above ``threshold`` (the policy's for stored chunks
    unless told, e.g. its web-page threshold) never reaches a model.
    """
    labels = [_label(p) for p in passages]
    kept, withheld = screen(list(zip(labels, scores, strict=True)), threshold=threshold)
    return [Passage(**{**passages[i], "n": n}) for n, i in enumerate(kept, start=1)], _withheld_notes(withheld)


def screen_candidates(
    candidates: Sequence[HitRecord], *, enough: int | None = None
) -> tuple[list[HitRecord], list[str]]:
    """Search hits whose chunk scored as injected instructions (at ingestion, or by today's rules on
    its text), left out of a Q&A run before any grader or generator reads them.

    Rescoring reads a chunk's text; with ``enough`` it stops once that many would be kept (the rest
    are cut after the screen anyway) and the rest keep their stored scores."""
    items: list[tuple[str, float | None]] = []
    passing = 0
    for h in candidates:
        stored = h["payload"].get(SCORE_KEY)
        score = (
            stored
            if enough is not None and passing >= enough
            else rescored(stored, str(h["payload"].get("text") or ""))
        )
        passing += not withholds(score)
        items.append((_label(h["payload"]), score))
    kept, withheld = screen(items)
    return [candidates[i] for i in kept], _withheld_notes(withheld)


def _label(item: Mapping[str, Any]) -> str:
    return str(item.get("title") or item.get("source") or item.get("doc_id") or "a document")


def _withheld_notes(withheld: Sequence[Withheld]) -> list[str]:
    return list(dict.fromkeys(messages.PASSAGE_WITHHELD.format(label=w.label, score=w.score) for w in withheld))
