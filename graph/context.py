"""Run-time knobs of the query graph (``context_schema``); Studio shows each description."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Context:
    """Per-run settings. Process settings (URLs, paths) come from the environment instead."""

    collection: str = field(
        default="", metadata={"description": "Collection to query; empty means the COLLECTION setting."}
    )
    top_k: int = field(
        default=5, metadata={"description": "Results (search) or sources (qa) returned when the input does not say."}
    )
    candidates: int = field(
        default=50, metadata={"description": "Candidates each retriever contributes before fusion."}
    )
    rrf_k: float = field(
        default=60.0, metadata={"description": "RRF constant k in Σ w/(k + rank); larger flattens rank differences."}
    )
    dense_weight: float = field(default=1.0, metadata={"description": "RRF weight of the dense (Qdrant) ranking."})
    bm25_weight: float = field(default=1.0, metadata={"description": "RRF weight of the BM25 ranking."})
    rerank: bool = field(
        default=True, metadata={"description": "Rerank with the cross-encoder when one is configured."}
    )
    rerank_candidates: int = field(default=30, metadata={"description": "Fused candidates the cross-encoder rescores."})
    score_threshold: float = field(
        default=0.0, metadata={"description": "Drop results whose 0..1 score is below this."}
    )
    user_id: str = field(default="", metadata={"description": "Who asks; used to read a user profile from the store."})
