"""Sentences, Japanese and English: where they end, and which of them an answer may quote.

``split_sentences`` is lossless (``"".join`` gives the text back), so the chunker can cut at
sentence ends and keep offsets. ``candidate_sentences`` is the one definition of "a sentence an
extractive answer may quote": extraction reads them and ingestion embeds exactly these
(``components/stores/sentences.py``), so changing it needs a re-sync of the stored vectors.
"""

from __future__ import annotations

import re

_SENT_END = re.compile(r"(?<=[。！？!?])[」』）)\"']*|(?<=[.!?])[\"')\]]*(?=\s)|\n{2,}")
_MARKUP = re.compile(r"\*\*|__|`")
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
#: candidate sentences shorter than this are fragments (a heading word, "Yes.")
MIN_CANDIDATE_CHARS = 8


def split_sentences(text: str) -> list[str]:
    """Sentences with their trailing whitespace kept, so ``"".join`` gives the text back."""
    out: list[str] = []
    start = 0
    for m in _SENT_END.finditer(text):
        end = m.end()
        while end < len(text) and text[end] in " \t\n":
            end += 1
        if end > start:
            out.append(text[start:end])
            start = end
    if start < len(text):
        out.append(text[start:])
    return out


def candidate_sentences(text: str) -> list[str]:
    """The sentences of a passage an answer may quote, in reading order.

    One per line at most (list items and table rows stay apart), markup and bullets removed,
    whitespace collapsed, fragments left out.
    """
    out: list[str] = []
    for line in text.split("\n"):
        line = _BULLET.sub("", _MARKUP.sub("", line)).strip()
        if not line or line.startswith("|---") or line.startswith("#"):
            continue
        out.extend(s for s in (" ".join(s.split()) for s in split_sentences(line)) if len(s) >= MIN_CANDIDATE_CHARS)
    return out
