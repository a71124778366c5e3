"""Japanese or English: the one definition of a Japanese character, language detection, and MeCab.

Every module that needs to know whether text is Japanese asks here, so the character ranges
and the tagger are defined once.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]")
"""A Japanese character: hiragana, katakana (full and half width), CJK ideographs."""
KANJI = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]")
# characters a multilingual tokenizer spends about one token on: Japanese, CJK compatibility
# ideographs, full-width forms and CJK punctuation
_WIDE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff01-\uff9f\u3000-\u303f]")

#: taggers not in use: fugashi never frees a tagger (about 2.5 MB each, measured), so a process
#: keeps as many as it ever used at once, instead of one per thread that ever asked
_IDLE: list[Any] = []
_IDLE_LOCK = threading.Lock()


def has_japanese(text: str) -> bool:
    return JAPANESE.search(text) is not None


def written_in(text: str) -> frozenset[str]:
    """The languages whose script ``text`` uses at all: ``ja`` for any Japanese character, ``en``
    for any Latin letter. A Japanese question naming ``BM25`` is both: BM25 can match its Latin
    words in English chunks."""
    out = set()
    if JAPANESE.search(text):
        out.add("ja")
    if _LATIN.search(text):
        out.add("en")
    return frozenset(out)


def detect_language(text: str) -> str:
    """``ja``, ``en`` or ``und`` from the share of kana/kanji among letters.

    A script count is enough to tell the two languages this project serves apart and costs
    microseconds per chunk; a statistical detector would add a dependency for no gain here.
    """
    sample = text[:4000]
    ja = len(JAPANESE.findall(sample))
    latin = len(_LATIN.findall(sample))
    if ja == 0 and latin == 0:
        return "und"
    # Japanese characters carry about four Latin letters' worth of content each.
    return "ja" if ja * 4 >= latin * 0.5 else "en"


@contextmanager
def mecab() -> Iterator[Any]:
    """A MeCab tagger (fugashi with unidic-lite) for the block, no other thread's meanwhile:
    taggers are not thread-safe, and the nodes a parse returns belong to its tagger."""
    with _IDLE_LOCK:
        tagger = _IDLE.pop() if _IDLE else None
    if tagger is None:
        import fugashi

        tagger = fugashi.Tagger()
    try:
        yield tagger
    finally:
        with _IDLE_LOCK:
            _IDLE.append(tagger)


def estimate_tokens(text: str) -> int:
    """Tokens of ``text`` for budgeting, without a tokenizer.

    Multilingual tokenizers spend about one token per Japanese character and about 1.3 per
    English word; budgets only need the right order of magnitude, and this costs nothing.
    """
    wide = len(_WIDE.findall(text))
    words = len(_WIDE.sub(" ", text).split())
    return wide + math.ceil(words * 1.3)
