"""The QA file an evaluation run reads: one JSON object per line.

    {"id": "q1", "question": "...", "ground_truth": "...",      # or "ground_truths": ["...", ...]
     "contexts": ["gold passage", ...], "context_ids": ["doc id", ...],
     "answerable": true, "history": ["an earlier question in the thread", ...],
     "filters": {"tags": ["plants"]}}

Only ``question`` is required. ``answerable: false`` marks a question the corpus cannot answer
(the right output is "No information found" or the fallback); ``history`` makes the question a
follow-up (the earlier questions are asked first in the same thread, unscored); ``filters`` are
the run's search filters. A reference left empty (a golden set exported from feedback, before a
reviewer fills it) only leaves the reference-based metrics unscored. Other fields are kept as
``extra`` and copied to the report.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator


class DatasetError(ValueError):
    """A QA file that cannot be run; the message names the file and line and says what to fix."""


class QASample(BaseModel):
    """One question of an evaluation run and what a good answer looks like."""

    model_config = ConfigDict(extra="allow", frozen=True)

    id: str = ""
    question: str = Field(min_length=1)
    ground_truth: str = ""
    ground_truths: list[str] = Field(default_factory=list)
    contexts: list[str] = Field(default_factory=list)
    context_ids: list[str] = Field(default_factory=list)
    answerable: bool = True
    history: list[str] = Field(default_factory=list)
    filters: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _references(self) -> QASample:
        if not self.question.strip():
            raise ValueError("question is blank")
        if self.ground_truth and not self.ground_truths:
            object.__setattr__(self, "ground_truths", [self.ground_truth])
        elif self.ground_truths and not self.ground_truth:
            object.__setattr__(self, "ground_truth", self.ground_truths[0])
        return self

    @property
    def extra(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def load_qa(path: Path) -> list[QASample]:
    """Every sample of ``path``, ids filled in (``line-N``) and unique; :class:`DatasetError` otherwise.

    All malformed lines are reported at once (up to ten), each with its line number, so that a
    hand-written file is fixed in one pass.
    """
    if not path.is_file():
        raise DatasetError(f"{path}: no such file. Give a JSONL file with one question per line.")
    samples: list[QASample] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
            except json.JSONDecodeError as e:
                problems.append(f"line {n}: not JSON ({e.msg})")
                continue
            if not isinstance(raw, dict):
                problems.append(f"line {n}: a JSON object is needed, not {type(raw).__name__}")
                continue
            raw = {**raw, "id": str(raw.get("id") or raw.get("_id") or f"line-{n}")}
            try:
                sample = QASample.model_validate(raw)
            except ValidationError as e:
                problems.append(f"line {n}: " + "; ".join(_describe(err) for err in e.errors()))
                continue
            if sample.id in seen:
                problems.append(f"line {n}: id {sample.id!r} already used on line {seen[sample.id]}")
                continue
            seen[sample.id] = n
            samples.append(sample)
    if problems:
        shown = "\n  ".join(problems[:10]) + (f"\n  … and {len(problems) - 10} more" if len(problems) > 10 else "")
        raise DatasetError(
            f"{path}: {len(problems)} malformed line(s):\n  {shown}\n"
            'Each line needs at least {"question": "..."}; see evals/qa_dataset.py for the fields.'
        )
    if not samples:
        raise DatasetError(f'{path}: the file has no questions. Each line needs at least {{"question": "..."}}.')
    return samples


def _describe(err: Any) -> str:
    where = ".".join(str(p) for p in err.get("loc", ())) or "line"
    return f"{where}: {err.get('msg', 'invalid')}"
