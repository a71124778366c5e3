"""Japanese or English: the one definition of a Japanese character, language detection, and MeCab.

Every module that needs to know whether text is Japanese asks here, so the character ranges
and the tagger are defined once. :func:`latin_language` tells English from the other
Latin-script languages for the few readers whose models only know English.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
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


#: Latin-script languages spaCy ships stop-word lists for (in ``spacy.lang``, no model needed)
LATIN_LANGUAGES: tuple[str, ...] = ("en", "de", "fr", "es", "it", "nl", "pt")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
#: addresses whose parts are no words of the text ("com", "net" are Portuguese and Dutch stop words)
_ADDRESS = re.compile(r"\S+@\S+|\w+://\S+|www\.\S+|\S+\.(?:com|net|org)\b")


@functools.cache
def stop_words(lang: str) -> frozenset[str]:
    """spaCy's stop words of one of :data:`LATIN_LANGUAGES` (lower case).

    Read from the list's own file (``spacy/lang/<lang>/stop_words.py``, which imports nothing):
    importing it as ``spacy.lang.de.stop_words`` would import spaCy and the whole German language
    package first, over two seconds for the six languages."""
    if lang not in LATIN_LANGUAGES:
        raise ValueError(f"no stop words for {lang!r}: one of {LATIN_LANGUAGES}")
    spacy = importlib.util.find_spec("spacy")
    if spacy is None or spacy.origin is None:
        raise ModuleNotFoundError("spaCy is not installed: its stop-word lists tell the languages apart")
    path = Path(spacy.origin).parent / "lang" / lang / "stop_words.py"
    spec = importlib.util.spec_from_file_location(f"_stop_words_{lang}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return frozenset(module.STOP_WORDS)


@functools.cache
def _function_words() -> dict[str, frozenset[str]]:
    """Each language's stop words less those it shares with English ("in", "was", "also" say
    nothing about whether a text is English)."""
    english = stop_words("en")
    others = frozenset().union(*(stop_words(lang) for lang in LATIN_LANGUAGES[1:]))
    return {lang: english - others if lang == "en" else stop_words(lang) - english for lang in LATIN_LANGUAGES}


def latin_language(text: str) -> str:
    """The Latin-script language whose function words ``text`` uses most (``en``, ``de``, ``fr``,
    ``es``, ``it``, ``nl``, ``pt``); ``en`` unless another language has at least two of more than
    two letters, more than English has of any length, and a tenth of its words.

    Function words are enough to tell a sentence's language (Grefenstette's short-word method) and
    cost a set lookup per word; the name recogniser asks, because English NER reads every
    capitalised German noun as a name ("Welche Partei", "Einsatz").
    """
    words = [w.casefold() for w in _WORD.findall(_ADDRESS.sub(" ", text[:4000]))]
    lists = _function_words()
    # the other languages' one- and two-letter words ("e", "al", "le") are initials and parts of
    # names as often as words; English's ("to", "of", "is") are words
    counts = {lang: sum(w in lists[lang] and (lang == "en" or len(w) > 2) for w in words) for lang in LATIN_LANGUAGES}
    best = max(LATIN_LANGUAGES[1:], key=lambda lang: counts[lang])
    foreign = counts[best] >= 2 and counts[best] > counts["en"] and counts[best] * 10 >= len(words)
    return best if foreign else "en"


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
