"""Tokenization for the lexical (BM25) side, Japanese and English in the same text.

Text is NFKC-normalised (full-width letters and digits become ASCII), then split into runs:
Latin runs are lower-cased words, optionally Snowball-stemmed with English stop words removed;
Japanese runs go through MeCab (fugashi with the unidic-lite dictionary, both from PyPI),
keeping content words and dropping particles, auxiliaries and punctuation. Splitting runs
first keeps ``BM25`` one token whether it appears in an English or a Japanese sentence.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any

from components.text.language import has_japanese, mecab

_RUN = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?|[^\sa-z0-9]+")
_WORD = re.compile(r"\w+")
# parts of speech that carry no topic: particles, auxiliaries, symbols, blanks, pronouns
# (これ, 何, どこ); with stopwords on, also light verbs and adjectives (する, いる, ある, なる,
# いい: UniDic's 非自立可能) and interrogative adverbs, as English drops "how", "do", "is"
_JA_DROP = {"助詞", "助動詞", "補助記号", "記号", "空白"}
_JA_STOP_POS1 = {"代名詞"}
_JA_STOP_POS2 = {"非自立可能"}
_JA_STOPWORDS = frozenset({"どう", "なぜ", "どうして", "いかが", "どの", "どんな", "どのよう", "こう", "そう", "ああ"})

ENGLISH_STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)


#: texts whose tokens a Tokenizer keeps (a few MB): more than the chunks one search scores
TEXTS_KEPT = 4096


class Tokenizer:
    """Callable ``text -> list[str]``; thread-safe (each thread has its own MeCab tagger)."""

    def __init__(self, *, stem: bool = True, stopwords: bool = True) -> None:
        self.stem = stem
        self.stopwords = stopwords
        # search scores the same chunks for question after question (a batch, a chat): each
        # text is tokenized once while it stays among the recent ones
        self._tokens = lru_cache(maxsize=TEXTS_KEPT)(self._tokenize)
        self._stemmer: Any = None
        if stem:
            import snowballstemmer

            self._stemmer = snowballstemmer.stemmer("english")

    @property
    def signature(self) -> str:
        """Identity of the token stream, so a cached index built differently is not reused."""
        return f"v2:stem={int(self.stem)}:stop={int(self.stopwords)}"

    def __call__(self, text: str) -> list[str]:
        return list(self._tokens(text))

    def _tokenize(self, text: str) -> tuple[str, ...]:
        text = unicodedata.normalize("NFKC", text).lower()
        out: list[str] = []
        for m in _RUN.finditer(text):
            run = m.group(0)
            c = run[0]
            if c.isascii() and c.isalnum():
                w = run.replace("’", "'").split("'")[0] if "'" in run or "’" in run else run
                if self.stopwords and w in ENGLISH_STOPWORDS:
                    continue
                out.append(self._stem(w) if self.stem else w)
            elif has_japanese(run):
                with mecab() as tagger:
                    for tok in tagger(run):
                        # the raw feature's first two fields are UniDic's pos1 and pos2; reading them
                        # there costs half of what building fugashi's 29-field feature tuple does
                        pos1, pos2, _ = tok.feature_raw.split(",", 2)
                        if pos1 in _JA_DROP:
                            continue
                        if self.stopwords and (
                            pos1 in _JA_STOP_POS1 or pos2 in _JA_STOP_POS2 or tok.surface in _JA_STOPWORDS
                        ):
                            continue
                        out.append(tok.surface)
            else:  # other scripts: plain words (accented Latin, Cyrillic, ...)
                out.extend(_WORD.findall(run))
        return tuple(out)

    def _stem(self, w: str) -> str:
        return _cached_stem(self._stemmer, w)


@lru_cache(maxsize=200_000)
def _cached_stem(stemmer: Any, w: str) -> str:
    return str(stemmer.stemWord(w))
