"""What an evaluation run measures on each answer: RAGAS metrics, plus the checks RAGAS lacks.

Always (no LLM): RAGAS's non-LLM context recall and precision against the reference passages
(``contexts``, fuzzy string match), id-based context recall and precision against
``context_ids`` over the top ``k`` retrieved documents, ROUGE-L and string similarity of the
answer against the reference, and whether a short reference span appears in the answer. Then
the run's own: whether the answer cites a gold document, and whether an unanswerable question
was declined (and an answerable one was not).

With a judge (``Judge``): RAGAS's faithfulness, answer relevancy, LLM context precision and LLM
context recall, the judge an Ollama model through langchain-ollama (RAGAS's LangChain wrapper)
and the project's own embedder for answer relevancy.

Japanese needs word boundaries that RAGAS's ROUGE (rouge-score's ASCII tokenizer) does not
have: ROUGE here tokenizes with the project's tokenizer (MeCab for Japanese, the same words BM25
sees). Citations (``[1]``) are removed from answers before any string comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from components.text import messages
from components.text.messages import strip_citations
from evals.qa_dataset import QASample
from evals.ragas_compat import load_ragas

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

#: a reference this short is a span the answer should contain (JSQuAD's answers are 1–20 characters)
SHORT_SPAN = 40


@dataclass(frozen=True)
class Answered:
    """What the graph gave for one question: the answer and the evidence it was drawn from."""

    answer: str
    contexts: list[str]
    """Retrieved passages, best first (the run's ``results``, at most ``k``)."""
    context_ids: list[str]
    """Their document ids, a gold id where the document is a gold one (see :func:`match_ids`)."""
    cited_ids: list[str]
    declined: bool


def is_decline(answer: str, escalated: bool) -> bool:
    """A fallback or "no information" answer: the graph gave up, or said the documents lack it."""
    return escalated or messages.is_decline(answer)


def match_ids(doc_ids: Sequence[str | None], sources: Sequence[str | None], gold: Sequence[str]) -> list[str]:
    """Each retrieved document as the gold id it is, else its own id.

    A gold id may be a document id (a JSONL ``_id``), or a path relative to the ingested folder
    (``life/Monstera Care.md``) for notes, whose document ids are absolute paths that differ
    from one machine to the next.
    """
    out: list[str] = []
    for doc_id, source in zip(doc_ids, sources, strict=True):
        own = doc_id or source or ""
        hit = next((g for g in gold if _same_document(g, own, source or "")), None)
        out.append(hit or own)
    return out


def _same_document(gold: str, doc_id: str, source: str) -> bool:
    if gold in (doc_id, source):
        return True
    tail = "/" + gold.lstrip("/")
    return doc_id.endswith(tail) or source.endswith(tail)


# --------------------------------------------------------------------------- RAGAS metrics


def _rouge_metric(tokenize: Callable[[str], list[str]]) -> Any:
    from ragas.metrics import RougeScore

    class _Words:
        def tokenize(self, text: str) -> list[str]:
            return tokenize(text)

    @dataclass
    class WordRouge(RougeScore):  # type: ignore[misc]
        """RAGAS's ROUGE-L with the project's tokenizer (Japanese has no spaces)."""

        name: str = "rouge_l"

        async def _single_turn_ascore(self, sample: Any, callbacks: Any) -> float:
            scorer = self.rouge_scorer.RougeScorer([self.rouge_type], tokenizer=_Words())
            scores = scorer.score(sample.reference, sample.response)
            return float(getattr(scores[self.rouge_type], self.mode))

    return WordRouge()


@dataclass
class Judge:
    """An LLM judge for RAGAS's LLM metrics: a LangChain chat model and the embedder."""

    llm: BaseChatModel
    embeddings: Embeddings
    model_id: str


@dataclass
class Metrics:
    """The RAGAS metric objects of a run, built once; :meth:`score` runs them on one answer."""

    tokenize: Callable[[str], list[str]]
    k: int = 5
    judge: Judge | None = None
    _nonllm: dict[str, Any] = field(default_factory=dict, init=False)
    _llm: dict[str, Any] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        load_ragas()
        from ragas.metrics import (
            IDBasedContextPrecision,
            IDBasedContextRecall,
            NonLLMContextPrecisionWithReference,
            NonLLMContextRecall,
            NonLLMStringSimilarity,
        )

        self._nonllm = {
            "context_recall": NonLLMContextRecall(),
            "context_precision": NonLLMContextPrecisionWithReference(),
            f"id_context_recall@{self.k}": IDBasedContextRecall(),
            f"id_context_precision@{self.k}": IDBasedContextPrecision(),
            "rouge_l": _rouge_metric(self.tokenize),
            "string_similarity": NonLLMStringSimilarity(),
        }
        if self.judge is not None:
            self._llm = _llm_metrics(self.judge)

    @property
    def names(self) -> list[str]:
        return [*self._nonllm, "span_in_answer", "cites_gold", "declined_correctly", *self._llm]

    @property
    def llm_names(self) -> list[str]:
        return list(self._llm)

    async def score(self, sample: QASample, got: Answered) -> dict[str, float | None]:
        """Every metric that applies to this sample (None where its inputs are missing)."""
        from ragas.dataset_schema import SingleTurnSample

        answer = strip_citations(got.answer)
        reference = sample.ground_truth
        turn = SingleTurnSample(
            user_input=sample.question,
            response=answer,
            reference=reference or None,
            retrieved_contexts=got.contexts[: self.k],
            reference_contexts=sample.contexts or None,
            retrieved_context_ids=list[str | int](got.context_ids[: self.k]),
            reference_context_ids=list[str | int](sample.context_ids) or None,
        )
        needs = {
            "context_recall": bool(sample.contexts),
            "context_precision": bool(sample.contexts),
            f"id_context_recall@{self.k}": bool(sample.context_ids),
            f"id_context_precision@{self.k}": bool(sample.context_ids),
            # comparing a decline with "No information found" says nothing about the answer
            "rouge_l": bool(reference) and sample.answerable,
            "string_similarity": bool(reference) and sample.answerable,
        }
        out: dict[str, float | None] = {}
        for name, metric in self._nonllm.items():
            if not needs[name]:
                out[name] = None
            elif name.startswith("id_") and not got.context_ids:
                out[name] = 0.0
            else:
                out[name] = _number(await metric.single_turn_ascore(turn))
        out.update(self._own(sample, got, answer))
        if self._llm:
            out.update(await self._judge(sample, turn))
        return out

    def _own(self, sample: QASample, got: Answered, answer: str) -> dict[str, float | None]:
        spans = [r for r in sample.ground_truths if r and len(r) <= SHORT_SPAN]
        folded = answer.casefold()
        span = float(any(s.casefold() in folded for s in spans)) if spans and sample.answerable else None
        cites = None
        if sample.answerable and sample.context_ids:
            cites = float(any(c in sample.context_ids for c in got.cited_ids))
        return {
            "span_in_answer": span,
            "cites_gold": cites,
            "declined_correctly": float(got.declined != sample.answerable),
        }

    async def _judge(self, sample: QASample, turn: Any) -> dict[str, float | None]:
        out: dict[str, float | None] = {}
        for name, metric in self._llm.items():
            if name in ("llm_context_precision", "llm_context_recall") and not sample.ground_truth:
                out[name] = None
                continue
            if not sample.answerable and name in ("faithfulness", "answer_relevancy"):
                out[name] = None  # a decline states nothing to ground and answers nothing
                continue
            out[name] = _number(await metric.single_turn_ascore(turn))
        return out


def _llm_metrics(judge: Judge) -> dict[str, Any]:
    import warnings

    from ragas.metrics import Faithfulness, LLMContextPrecisionWithReference, LLMContextRecall, ResponseRelevancy

    with warnings.catch_warnings():  # the LangChain wrappers are deprecated in favour of llm_factory,
        warnings.simplefilter("ignore", DeprecationWarning)  # which has no Ollama chat model
        from ragas.embeddings import LangchainEmbeddingsWrapper
        from ragas.llms import LangchainLLMWrapper

        llm = LangchainLLMWrapper(judge.llm)
        emb = LangchainEmbeddingsWrapper(judge.embeddings)
    return {
        "faithfulness": Faithfulness(llm=llm),
        "answer_relevancy": ResponseRelevancy(llm=llm, embeddings=emb, strictness=1),
        "llm_context_precision": LLMContextPrecisionWithReference(llm=llm),
        "llm_context_recall": LLMContextRecall(llm=llm),
    }


def _number(value: Any) -> float | None:
    """A metric's value as a float; NaN (RAGAS's "could not score") as None."""
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if f != f else round(f, 6)
