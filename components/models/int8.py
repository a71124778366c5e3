"""Linear layers in int8 on the CPU: torch's dynamic quantisation, for query encoders.

Both the e5 port (``components.models.e5_torch``) and sentence-transformers models
(``components.models.embedders``) embed queries through an int8 copy of their encoder when asked
(docs/decisions/0005-int8-query-precision.md). torch is imported when a function is called, not
with this module.
"""

from __future__ import annotations

from typing import Any

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
