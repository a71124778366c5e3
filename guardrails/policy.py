"""The guardrail policy: what the guardrails let through, block, redact and keep out of the cache.

One place for the decisions; the checks themselves (patterns, detectors) live beside it in
``guardrails/``, the texts users see when a question is blocked in ``components/text/messages.py``
(``REFUSAL``, ``TOO_LONG``). Nodes and routers read ``POLICY`` and hold no policy of their own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GuardrailPolicy:
    """Decisions of the input and output guardrails, with why each default is what it is."""

    #: characters; a longer question is a pasted document or an attack, not a question
    max_input_chars: int = 4000
    #: search runs no model and keeps nothing (no cache, no thread), so an injection-looking
    #: search query can do no harm, and the words of a query are what it must be searched for:
    #: search skips the input rail, and its log line holds a hash of the query and its length,
    #: never its text. Set this to check (and block) search queries as questions are checked.
    block_search_queries: bool = False
    #: personal data never blocks (people ask about their own notes, which hold their own
    #: addresses), but an answer to a question that holds some is not cached, since the cache
    #: may serve it to another asker
    cache_answers_with_pii: bool = False
    #: characters of the redacted question written to the log per request
    log_preview_chars: int = 200
    #: personal data in an answer that no passage contains came from the model: redact it
    redact_unsupported_pii: bool = True
    #: a stored chunk whose injection score (written at ingestion) reaches this is kept from
    #: generation, with a warning. Curated patterns score 1.0. The passage head scores how-tos and
    #: policies written in prose as high as instructions planted in prose (0.4-0.8 both), so the
    #: threshold is the lowest that keeps at most 2% of benign documents from the model in every
    #: language, fitted on the tune split of the prose documents (`python -m evals.document_rail`;
    #: decision 0031): it withholds what the patterns catch and the head's rare confident scores
    document_injection_threshold: float = 0.8
    #: a web page whose whole-text scan (patterns, then the query head over its windows) reaches
    #: this is kept from generation; 0.5 is the query head's own threshold (at most 3% of benign
    #: text flagged per language): pages are written by anyone and scanned as questions are
    web_page_injection_threshold: float = 0.5
    #: characters of the documents given with one question (pasted, attached), together: a long
    #: paper or a short book. They are chunked and ranked in memory for that question alone, and
    #: a run holds them in its state, so a corpus belongs in the index (`rag ingest`) instead
    max_given_document_chars: int = 1_000_000


POLICY = GuardrailPolicy()
