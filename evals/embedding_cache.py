"""Query vectors kept on disk, keyed by the text's hash and the model id, so that a rerun of a
training or judging loop over thousands of windows takes seconds instead of the half hour the
embedding takes on a laptop CPU.

One folder per model (its id hashed into the name); every flush writes a new shard
(``shard-NNNNN.npz``: ``keys`` and ``vectors``), so an interrupted run keeps what it embedded and
two shards never need merging. Keys are ``sha256(model_id + "\\0" + kind + "\\0" + text)``: the
same text embedded as a query and as a passage are two vectors.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

log = logging.getLogger(__name__)

DEFAULT_CACHE = Path(".rag/embedding-cache")

Encode = Callable[[list[str]], np.ndarray]


def text_key(model_id: str, kind: str, text: str) -> str:
    """The cache key of one text: its hash with the model and the kind of vector (query/passage)."""
    return hashlib.sha256(f"{model_id}\0{kind}\0{text}".encode()).hexdigest()


class EmbeddingCache:
    """Vectors of one model on disk; :meth:`embed` fills what is missing through ``encode``."""

    def __init__(self, root: Path, model_id: str, *, flush_every: int = 1024) -> None:
        self.model_id = model_id
        self.folder = root / hashlib.sha256(model_id.encode()).hexdigest()[:16]
        self.flush_every = flush_every
        self._vectors: dict[str, np.ndarray] = {}
        self._load()

    def _load(self) -> None:
        if not self.folder.is_dir():
            return
        for shard in sorted(self.folder.glob("shard-*.npz")):
            with np.load(shard) as data:
                for k, v in zip(data["keys"].tolist(), data["vectors"], strict=True):
                    self._vectors[str(k)] = v
        log.info("embedding cache %s: %d vectors", self.folder, len(self._vectors))

    def _flush(self, keys: list[str], vectors: list[np.ndarray]) -> None:
        if not keys:
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "model_id.txt").write_text(self.model_id + "\n", encoding="utf-8")
        n = len(list(self.folder.glob("shard-*.npz")))
        tmp = self.folder / f"tmp-{n:05d}.npz"
        np.savez(tmp, keys=np.asarray(keys), vectors=np.stack(vectors).astype(np.float32))
        tmp.rename(self.folder / f"shard-{n:05d}.npz")

    def embed(self, texts: list[str], encode: Encode, *, kind: str = "query", batch: int = 32) -> np.ndarray:
        """One vector per text (in order), encoding only the texts not cached yet, with a progress bar."""
        keys = [text_key(self.model_id, kind, t) for t in texts]
        todo: dict[str, str] = {}
        for k, t in zip(keys, texts, strict=True):
            if k not in self._vectors:
                todo.setdefault(k, t)
        if todo:
            log.info("embedding %d of %d texts (%s); the rest are cached", len(todo), len(texts), kind)
            pending_k: list[str] = []
            pending_v: list[np.ndarray] = []
            items = sorted(todo.items(), key=lambda kv: len(kv[1]))  # similar lengths batch with less padding
            columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
            with Progress(*columns, console=Console(stderr=True)) as bar:
                task = bar.add_task(f"embedding {kind} texts", total=len(items))
                for s in range(0, len(items), batch):
                    chunk = items[s : s + batch]
                    vecs = np.asarray(encode([t for _, t in chunk]), dtype=np.float32)
                    for (k, _), v in zip(chunk, vecs, strict=True):
                        self._vectors[k] = v
                        pending_k.append(k)
                        pending_v.append(v)
                    if len(pending_k) >= self.flush_every:
                        self._flush(pending_k, pending_v)
                        pending_k, pending_v = [], []
                    bar.advance(task, len(chunk))
            self._flush(pending_k, pending_v)
        if not keys:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([self._vectors[k] for k in keys]).astype(np.float32)
