"""The rerank node with a real (tiny, randomly initialised) CrossEncoder built in a temp folder."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest

from components.factory import Components
from components.models.reranker import Reranker
from components.settings import Settings
from graph.context import Context
from graph.rag import build_rag_graph
from tests.conftest import SAMPLE_VAULTS
from tests.integration.helpers import ingest

pytestmark = pytest.mark.integration


def tiny_cross_encoder(folder: Path) -> Path:
    """A 1-layer BERT sequence classifier with a word-level vocabulary, saved as a CrossEncoder."""
    from sentence_transformers import CrossEncoder
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    words = [
        "[PAD]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "water",
        "monstera",
        "soil",
        "the",
        "when",
        "miso",
        "bm25",
        "k1",
        "rrf",
        "search",
        "dry",
        "top",
        "of",
        "is",
        "a",
    ]
    folder.mkdir(parents=True)
    (folder / "vocab.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    tok = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True)
    cfg = BertConfig(
        vocab_size=len(words),
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=512,
        num_labels=1,
        initializer_range=0.5,
    )  # large random weights: scores that differ
    model = BertForSequenceClassification(cfg)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    CrossEncoder(str(folder), device="cpu").save(str(folder))
    return folder


@pytest.fixture(scope="module")
def reranking(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("rerank")
    model = tiny_cross_encoder(root / "ce")
    shutil.copytree(SAMPLE_VAULTS / "life", root / "life")
    settings = Settings(
        qdrant_path=root / "q",
        data_dir=root / "d",
        reranker_model=str(model),  # type: ignore[call-arg]
        _env_file=None,
    )
    c = Components(settings)
    ingest(c, root / "life")
    yield c
    c.close()


def search(c: Components) -> dict[str, Any]:
    out: dict[str, Any] = asyncio.run(
        # min_score 0: the test model's weights are random, so its order (and thus the calibrated
        # scores along it) says nothing about relevance; the ranking policy's freshness boost (on by
        # default, the vault is dated) would move its near-ties: off, the cross-encoder's own order
        build_rag_graph(c).ainvoke(
            {"mode": "search", "question": "when is the monstera soil dry", "top_k": 5},
            context=Context(min_score=0.0, freshness_boost=0.0),
        )
    )
    return out


def test_cross_encoder_reorders_the_candidates(reranking: Components) -> None:
    out = search(reranking)
    assert not any("Reranking skipped" in w for w in out["warnings"])
    scores = [r["retriever_scores"]["rerank"] for r in out["results"]]
    assert all(0.0 <= s <= 1.0 for s in scores) and len(set(scores)) > 1
    assert scores == sorted(scores, reverse=True)
    # the cross-encoder orders; the score shown is the calibrated relevance along that order
    assert [r["retriever_scores"]["ranker"] for r in out["results"]] == pytest.approx(scores, abs=1e-6)
    shown = [r["score"] for r in out["results"]]
    assert shown == sorted(shown, reverse=True) and all(0.0 <= v <= 1.0 for v in shown)


def test_failing_cross_encoder_keeps_the_fused_order(reranking: Components, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Reranker, query: str, texts: list[str]) -> list[float]:
        raise RuntimeError("model file damaged")

    monkeypatch.setattr(Reranker, "rerank", broken)
    out = search(reranking)
    assert any("the cross-encoder failed (an error; details in the log)" in w for w in out["warnings"])
    assert out["results"] and all("rerank" not in r["retriever_scores"] for r in out["results"])
    fused = [r["score"] for r in out["results"]]
    assert fused == sorted(fused, reverse=True)


def test_unloadable_model_is_reported(tmp_path: Path) -> None:
    from components.resilience.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="could not be loaded offline"):
        Reranker(model=str(tmp_path / "missing")).rerank("q", ["t"])
