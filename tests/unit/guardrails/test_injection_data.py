"""The injection training data: every file in the schema, enough independent sources, both classes in every language."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parents[3] / "guardrails" / "data"
OURS = DATA / "injection_dev.jsonl"
PUBLIC = sorted((DATA / "injection").glob("*.jsonl"))
FIELDS = {"id", "text", "label", "category", "lang", "group", "source"}
# Held-out evaluation sets (guardrails/data/SOURCES.md): none of them may feed training.
EXCLUDED = re.compile(
    r"deepset|prompt-injections|gandalf|lakera|verazuo|jailbreak_llms|inthewild|in-the-wild|notinject|leolee99"
    r"|model-audit-lite|presidio|stockmark|ner-wikipedia|jglue|jsquad|nq-open|nq_open",
    re.IGNORECASE,
)


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def public() -> list[dict[str, Any]]:
    return [row for path in PUBLIC for row in read(path)]


@pytest.mark.parametrize("path", [OURS, *PUBLIC], ids=lambda p: p.name)
def test_every_line_has_the_schema(path: Path) -> None:
    for row in read(path):
        assert set(row) == FIELDS, row.get("id")
        assert row["label"] in ("attack", "benign"), row["id"]
        assert all(isinstance(row[k], str) and row[k].strip() for k in FIELDS), row["id"]


@pytest.mark.parametrize("path", PUBLIC, ids=lambda p: p.name)
def test_public_lines_fit_the_length_cap(path: Path) -> None:
    # our own set keeps its long pasted jailbreaks (dan_long) as written
    assert [row["id"] for row in read(path) if len(row["text"]) > 4000] == []


def test_one_source_per_public_file(public: list[dict[str, Any]]) -> None:
    for path in PUBLIC:
        assert {row["source"] for row in read(path)} == {path.stem}


def test_ids_are_unique_across_files(public: list[dict[str, Any]]) -> None:
    ids = Counter(row["id"] for row in [*read(OURS), *public])
    assert [i for i, n in ids.items() if n > 1] == []


def test_at_least_five_public_sources_beside_ours(public: list[dict[str, Any]]) -> None:
    assert read(OURS), "the project's own set stays one source"
    assert len({row["source"] for row in public}) >= 5


@pytest.mark.parametrize("lang", ["en", "de", "ja", "zh"])
def test_every_language_has_both_classes(public: list[dict[str, Any]], lang: str) -> None:
    rows = [*read(OURS), *public]
    assert {row["label"] for row in rows if row["lang"] == lang} == {"attack", "benign"}
    assert {row["label"] for row in public if row["lang"] == lang} == {"attack", "benign"}


def test_no_excluded_source_is_named(public: list[dict[str, Any]]) -> None:
    named = {row["source"] for row in public} | {row["group"] for row in public} | {p.name for p in PUBLIC}
    assert [n for n in named if EXCLUDED.search(n)] == []


def test_no_text_is_repeated_across_sources(public: list[dict[str, Any]]) -> None:
    seen: dict[str, str] = {row["text"]: "injection_dev" for row in read(OURS)}
    for row in public:
        assert seen.setdefault(row["text"], row["source"]) == row["source"], row["id"]


def test_a_group_stays_in_one_source(public: list[dict[str, Any]]) -> None:
    owners: dict[str, set[str]] = {}
    for row in public:
        owners.setdefault(row["group"], set()).add(row["source"])
    assert [g for g, s in owners.items() if len(s) > 1] == []


def test_sources_md_lists_every_source(public: list[dict[str, Any]]) -> None:
    listed = (DATA / "SOURCES.md").read_text(encoding="utf-8")
    missing = [s for s in sorted({row["source"] for row in public}) if f"`{s}`" not in listed]
    assert missing == []
