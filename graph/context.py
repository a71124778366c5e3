"""Run-time knobs of the query graph (``context_schema``); Studio shows each description."""

from __future__ import annotations

import json
import string
from dataclasses import dataclass, field, fields
from typing import Any

from components.heuristics.grading import CONTEXT_THRESHOLD
from components.heuristics.relevance import MIN_SCORE
from components.retrieval import fusion as fusion_methods
from nodes.rag import prompts

#: the retrievers a run may use, each a node of the query graph
RETRIEVERS = ("dense", "bm25")


def _prompt(default: str, used_by: str, placeholders: tuple[str, ...] = (), reads_passages: bool = False) -> Any:
    """A system prompt as a run-time field; its placeholders are what the node fills in. A node
    that ``reads_passages`` sends them in the user message, never in this prompt."""
    fill = f" Placeholders the node fills: {', '.join('{' + p + '}' for p in placeholders)}." if placeholders else ""
    data = " The passages follow in the user message, as data between <passage> tags." if reads_passages else ""
    return field(
        default=default,
        metadata={
            "description": f"System prompt of {used_by}.{fill}{data}",
            "placeholders": placeholders,
            "reads_passages": reads_passages,
        },
    )


@dataclass
class Context:
    """Per-run settings. Process settings (URLs, paths) come from the environment instead."""

    collection: str = field(
        default="", metadata={"description": "Collection to query; empty means the COLLECTION setting."}
    )
    collections: tuple[str, ...] = field(
        default=(),
        metadata={
            "description": "Several collections at once (one embedding model), in search and Q&A: each is "
            "searched as alone, and the results merge on their probability of relevance, each saying its "
            "collection; an answer reads them as one. Empty: `collection` alone."
        },
    )
    top_k: int = field(
        default=5, metadata={"description": "Results (search) or sources (qa) returned when the input does not say."}
    )
    candidates: int = field(
        default=50, metadata={"description": "Candidates each retriever contributes before fusion."}
    )
    rrf_k: float = field(
        default=60.0,
        metadata={"description": "With fusion='rrf': k in Σ w/(k + rank); larger flattens rank differences."},
    )
    fusion: str = field(
        default=fusion_methods.DEFAULT,
        metadata={
            "description": "How the dense and BM25 lists are joined: "
            + "; ".join(f"'{m.name}' ({m.description})" for m in fusion_methods.METHODS.values())
            + ". The default measured best on SciFact and JSQuAD (README)."
        },
    )
    retrievers: tuple[str, ...] = field(
        default=RETRIEVERS,
        metadata={
            "description": "Which retrievers run: 'dense' (Qdrant vectors) and 'bm25' (lexical); "
            "one alone measures it (evals.retrieval's modes) or searches by words or meaning only."
        },
    )
    dense_weight: float = field(default=1.0, metadata={"description": "Fusion weight of the dense (Qdrant) ranking."})
    bm25_weight: float = field(default=1.0, metadata={"description": "Fusion weight of the BM25 ranking."})
    rerank: bool = field(
        default=True, metadata={"description": "Rerank with the cross-encoder when one is configured."}
    )
    rerank_candidates: int = field(default=30, metadata={"description": "Fused candidates the cross-encoder rescores."})
    freshness_boost: float = field(
        default=0.1,
        metadata={
            "description": "Ranking: a dated document's chunks (note 'created', a record's year) gain at most "
            "this share of the candidates' score spread, weighed by their own probability of relevance and "
            "halving every freshness_half_life_days; 0.1 (the default) lets a revision overtake its near-equal "
            "original; 0 turns it off. It moves near-ties only; the scores shown are unchanged. Undated "
            "collections rank as without it."
        },
    )
    freshness_half_life_days: float = field(
        default=365.0, metadata={"description": "Ranking: days after which a document's freshness boost halves."}
    )
    tier_margin: float = field(
        default=0.05,
        metadata={
            "description": "Several collections: a hot collection's result wins against a cold one's "
            "(`rag ingest --tier cold`) when their scores (probabilities of relevance) are this close."
        },
    )
    feedback_boost: float = field(
        default=0.1,
        metadata={
            "description": "Q&A ranking: the asker's own verdicts move the documents behind earlier answers, at "
            "most this share of the candidates' score spread ('bad' for a wrong or outdated answer demotes, "
            "'good' promotes half as much); never another user's verdicts; 0 turns it off."
        },
    )
    feedback_half_life_days: float = field(
        default=90.0, metadata={"description": "Q&A ranking: days after which a verdict counts half."}
    )
    max_age_days: int = field(
        default=0,
        metadata={
            "description": "Q&A: leave out passages of documents older than this many days (0: no limit); "
            "max_age_keeps keeps them with a warning instead. Search shows each result's age_days."
        },
    )
    max_age_keeps: bool = field(
        default=False,
        metadata={"description": "With max_age_days: keep older passages and name them in a warning."},
    )
    min_score: float = field(
        default=MIN_SCORE,
        metadata={
            "description": "Search only: the least score a result needs. Scores are the probability "
            "that a result is relevant (the embedding model's calibrated model, the same for every "
            "query); 0 shows the closest chunks even when none is likely relevant. Q&A grades its "
            "context with context_threshold instead."
        },
    )
    user_id: str = field(
        default="",
        metadata={
            "description": "Who asks; their profile (store namespace ('users', id), key 'profile') adds filters."
        },
    )
    tenant: str = field(
        default="",
        metadata={"description": "The organisation the user belongs to; answers are never cached across tenants."},
    )
    access_groups: tuple[str, ...] = field(
        default=(),
        metadata={
            "description": "Access groups the user holds, set by the calling app (never read from the question). "
            "Chunks whose 'access' names none of them are never searched, used or cached; "
            "chunks without 'access' are public. Empty: public chunks only."
        },
    )
    # --- language models (Ollama); empty means the process setting (LLM_MODEL*) ---
    use_llm: bool = field(
        default=True,
        metadata={"description": "Use the configured LLM; false forces every node onto its non-LLM path."},
    )
    router_model: str = field(default="", metadata={"description": "Model for query analysis and routing."})
    rewriter_model: str = field(default="", metadata={"description": "Model for rewriting and HyDE."})
    grader_model: str = field(
        default="", metadata={"description": "Model for the context, hallucination and answer graders."}
    )
    generator_model: str = field(default="", metadata={"description": "Model for answers and direct answers."})
    # --- switches ---
    extract_filters: bool = field(
        default=True, metadata={"description": "Q&A: turn dates, #tags and vault names in the question into filters."}
    )
    hyde: bool = field(
        default=True,
        metadata={"description": "With an LLM, drive dense retrieval by a hypothetical answer's embedding (HyDE)."},
    )
    web_search: bool = field(
        default=False,
        metadata={"description": "Allow web search (route and corrective fallback); needs WEB_SEARCH_PROVIDER."},
    )
    llm_input_check: bool = field(
        default=True,
        metadata={
            "description": "With an LLM configured, NeMo Guardrails' self-check input rail asks the grader model "
            "too; its block adds to the non-LLM checks."
        },
    )
    cache: bool = field(default=True, metadata={"description": "Use the semantic answer cache."})
    cache_threshold: float = field(
        default=0.977,
        metadata={
            "description": "Cosine similarity of two questions for a cache hit; 0.977 lets at most 1% of "
            "different-question pairs hit (evals/calibrate_cache.py)."
        },
    )
    fewshot_threshold: float = field(
        default=0.90,
        metadata={
            "description": "Cosine similarity above which a question rated good before (rag feedback ... good) "
            "is shown to the LLM generator as an example; 1.0 turns examples off."
        },
    )
    fewshot_max: int = field(default=2, metadata={"description": "Examples given to the LLM generator at most."})
    # --- grader thresholds (non-LLM paths) ---
    context_threshold: float = field(
        default=CONTEXT_THRESHOLD,
        metadata={
            "description": "Probability of relevance (the embedding model's calibrated logistic model) "
            "above which context is kept."
        },
    )
    support_threshold: float | None = field(
        default=None,
        metadata={
            "description": "Cosine to a passage sentence above which an answer sentence counts as supported; "
            "empty: the embedding model's calibrated value."
        },
    )
    answer_threshold: float | None = field(
        default=None,
        metadata={
            "description": "Probability of usefulness (the embedding model's calibrated logistic model of "
            "question-answer cosine and term coverage) an answer must reach; empty: 0.5."
        },
    )
    # --- loop caps ---
    max_context_rewrites: int = field(
        default=3, metadata={"description": "Rewrites after the context was graded not relevant, then fallback."}
    )
    max_regenerations: int = field(
        default=2, metadata={"description": "Regenerations after a failed hallucination check, then fallback."}
    )
    max_answer_rewrites: int = field(
        default=3, metadata={"description": "Rewrites after the answer was graded not useful, then fallback."}
    )
    # --- generation ---
    parent_budget_tokens: int = field(
        default=3000, metadata={"description": "Token budget of the parent sections given to the generator."}
    )
    sources: int = field(default=5, metadata={"description": "Relevant chunks whose parents become the context."})

    # --- prompts (defaults in nodes/rag/prompts.py); Studio can edit them per run ---
    analyze_prompt: str = _prompt(prompts.ANALYZE_SYSTEM, "query analysis", ("today", "vaults", "tags"))
    route_prompt: str = _prompt(prompts.ROUTE_SYSTEM, "the router")
    rewrite_prompt: str = _prompt(
        prompts.REWRITE_SYSTEM, "query rewrite and HyDE", ("hyde_instruction", "translation_instruction")
    )
    grade_context_prompt: str = _prompt(prompts.GRADE_CONTEXT_SYSTEM, "the context grader", reads_passages=True)
    generate_prompt: str = _prompt(
        prompts.GENERATE_SYSTEM, "answer generation", ("language_name", "no_info"), reads_passages=True
    )
    hallucination_prompt: str = _prompt(prompts.HALLUCINATION_SYSTEM, "the hallucination check", reads_passages=True)
    answer_grade_prompt: str = _prompt(prompts.ANSWER_GRADE_SYSTEM, "the answer grader")
    direct_prompt: str = _prompt(prompts.DIRECT_SYSTEM, "direct answers", ("language_name",))
    list_summary_prompt: str = _prompt(
        prompts.LIST_SUMMARY_SYSTEM,
        "the summary after a listing of documents (metadata route, with an LLM)",
        ("language_name",),
        reads_passages=True,
    )

    def __post_init__(self) -> None:
        for name in ("max_context_rewrites", "max_regenerations", "max_answer_rewrites"):
            if not 0 <= getattr(self, name) <= 10:
                raise ValueError(f"{name} must be between 0 and 10, not {getattr(self, name)}")
        if not 0 < self.cache_threshold <= 1:
            raise ValueError(f"cache_threshold must be in (0, 1], not {self.cache_threshold}")
        if not 0 < self.fewshot_threshold <= 1 or not 0 <= self.fewshot_max <= 10:
            raise ValueError(
                f"fewshot_threshold must be in (0, 1] and fewshot_max in 0..10, not "
                f"{self.fewshot_threshold} and {self.fewshot_max}"
            )
        if not 0 <= self.min_score <= 1:
            raise ValueError(f"min_score must be in 0..1 (a probability of relevance), not {self.min_score}")
        fusion_methods.get(self.fusion)  # ValueError naming the registered methods
        self.retrievers = tuple(self.retrievers)  # a JSON context sends a list
        if not self.retrievers or set(self.retrievers) - set(RETRIEVERS):
            raise ValueError(f"retrievers must be one or both of {', '.join(RETRIEVERS)}, not {list(self.retrievers)}")
        if self.top_k < 1 or self.candidates < 1 or self.parent_budget_tokens < 100:
            raise ValueError("top_k and candidates must be >= 1 and parent_budget_tokens >= 100")
        for f in fields(self):
            if "placeholders" in f.metadata:
                _check_prompt(f.name, getattr(self, f.name), f.metadata["placeholders"], f.metadata["reads_passages"])

    def audience(self) -> str:
        """Who may share answers and examples: the tenant (or the user without one) and the access
        groups they hold. Two runs with another audience never see each other's."""
        who = f"tenant:{self.tenant}" if self.tenant else f"user:{self.user_id}"
        return f"{who}|groups:{json.dumps(sorted(set(self.access_groups)), ensure_ascii=False)}"

    def custom_prompts(self) -> dict[str, str]:
        """The prompts this run changed from their defaults (they make its answers differ)."""
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if "placeholders" in f.metadata and getattr(self, f.name) != f.default
        }


def _check_prompt(name: str, text: str, placeholders: tuple[str, ...], reads_passages: bool) -> None:
    """A prompt may use only its node's placeholders; one written for an earlier version, which put
    the passages in the system prompt (``{passages}``), is refused with where they go now.

    A prompt without placeholders reaches the model verbatim, braces included.
    """
    if reads_passages and "{passages}" in text:
        raise ValueError(
            f"{name} contains {{passages}}: the passages now go to the model in the user message, as "
            "data between <passage> tags, never in the system prompt; remove {passages} from it"
        )
    if not placeholders:
        return
    allowed = ", ".join("{" + p + "}" for p in placeholders)
    try:
        used = {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
    except ValueError as e:
        raise ValueError(f"{name}: {e}; write a literal brace as {{{{ or }}}}") from e
    unknown = sorted(used - set(placeholders))
    if unknown:
        raise ValueError(
            f"{name} uses unknown placeholder(s) {', '.join('{' + u + '}' for u in unknown)}; "
            f"it may use {allowed} (write a literal brace as {{{{ or }}}})"
        )
