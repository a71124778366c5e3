"""``rag guard``: the input rail on its own, for evaluation runs and for trying a text by hand.

``--batch FILE.jsonl`` reads ``{"id": ..., "text": ...}`` lines and writes one line per input,
as soon as it is decided:

    {"id": ..., "verdict": "allow"|"block"|"redact", "reasons": [...],
     "entities": [{"start": ..., "end": ..., "entity_type": ..., "score": ...}]}

Offsets point into the original text; entity types are Presidio's names. The verdict is the
one the graph's ``guard_input`` node would reach without an LLM (the same NeMo rails and
checks, ``nodes.rag.rails``); the models load once for the whole file.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import IO, Any

from components.factory import Components
from components.text.language import detect_language
from guardrails import InputVerdict
from nodes.rag.rails import rails_of

log = logging.getLogger(__name__)


class BadLine(ValueError):
    """A batch line that is not ``{"id": ..., "text": "..."}``."""


def verdict_record(item_id: Any, verdict: InputVerdict) -> dict[str, Any]:
    """The evaluation contract's line for one input."""
    entities = [
        {"start": e.start, "end": e.end, "entity_type": e.entity_type, "score": round(float(e.score), 4)}
        for e in verdict.pii
    ]
    if not verdict.allowed:
        kind, reasons = "block", [f"{verdict.category}: {verdict.reason}"]
    elif entities:
        kinds = sorted({e.entity_type for e in verdict.pii})
        kind, reasons = "redact", [f"personal data: {', '.join(kinds)}"]
    else:
        kind, reasons = "allow", []
    return {"id": item_id, "verdict": kind, "reasons": reasons, "entities": entities}


def read_batch(stream: IO[str], name: str) -> Iterator[tuple[Any, str]]:
    """(id, text) per non-empty line; a malformed line raises :class:`BadLine` naming it."""
    for n, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as e:
            raise BadLine(
                f'{name}, line {n}: not JSON ({e.msg}). Each line must be {{"id": ..., "text": ...}}.'
            ) from None
        if not isinstance(item, dict) or not isinstance(item.get("text"), str):
            raise BadLine(f'{name}, line {n}: needs a string "text" field, e.g. {{"id": 1, "text": "..."}}.')
        yield item.get("id", n), item["text"]


async def _decide(c: Components, text: str) -> InputVerdict:
    language = detect_language(text) if text else "und"
    return await rails_of(c).check_input(text, language=language)


def run_batch(c: Components, stream: IO[str], name: str, out: IO[str]) -> int:
    """Decide every line of ``stream``, writing a result line per input as it goes; returns the count.

    A malformed line stops the run with :class:`BadLine`; the lines before it are written.
    """

    async def main() -> int:
        count = 0
        for item_id, text in read_batch(stream, name):
            verdict = await _decide(c, text)
            out.write(json.dumps(verdict_record(item_id, verdict), ensure_ascii=False) + "\n")
            out.flush()
            count += 1
        return count

    return asyncio.run(main())


def check_one(c: Components, text: str) -> dict[str, Any]:
    """The contract's record for a single text (``id`` null)."""
    return verdict_record(None, asyncio.run(_decide(c, text)))
