"""Cross-encoder reranking with sentence-transformers' ``CrossEncoder``.

No cross-encoder weights ship on PyPI, so the model comes from a setting (``RERANKER_MODEL``):
a local directory, or a model already in the local Hugging Face cache (loaded with
``local_files_only``, never downloaded). Without one, search skips reranking and says so.
Scores are mapped to 0..1 with a sigmoid when the model returns logits.
"""

from __future__ import annotations

import logging
import math
import threading
from pathlib import Path
from typing import Any

from components.resilience.errors import ConfigurationError

log = logging.getLogger(__name__)


class Reranker:
    """Lazy CrossEncoder; ``rerank(query, texts)`` returns one 0..1 score per text."""

    def __init__(self, *, model: str, batch_size: int = 32, max_length: int = 512) -> None:
        if not model:
            raise ConfigurationError("Reranker needs a model (RERANKER_MODEL): a folder or a cached model name")
        self.model_name = model
        self.batch_size = batch_size
        self.max_length = max_length
        self._model: Any = None
        self._lock = threading.Lock()

    def warm_up(self) -> None:
        with self._lock:
            if self._model is None:
                from sentence_transformers import CrossEncoder

                path = Path(self.model_name).expanduser()
                target = str(path) if path.is_dir() else self.model_name
                try:
                    self._model = CrossEncoder(target, device="cpu", max_length=self.max_length, local_files_only=True)
                except Exception as e:
                    raise ConfigurationError(
                        f"Cross-encoder {self.model_name!r} could not be loaded offline ({type(e).__name__}: {e}). "
                        f"Point RERANKER_MODEL at a folder holding a sentence-transformers CrossEncoder, or unset it."
                    ) from e

    def rerank(self, query: str, texts: list[str]) -> list[float]:
        if not texts:
            return []
        self.warm_up()
        raw = self._model.predict(
            [(query, t) for t in texts], batch_size=self.batch_size, show_progress_bar=False, convert_to_numpy=True
        )
        scores = [float(x) for x in (raw.tolist() if hasattr(raw, "tolist") else raw)]
        if any(s < 0.0 or s > 1.0 for s in scores):
            scores = [1.0 / (1.0 + math.exp(-s)) for s in scores]
        return scores
