"""Metadata values from frontmatter and JSONL records, as the index stores them.

Dates become ISO 8601 strings, names (tags, aliases, access groups) lists of trimmed strings,
and the other fields JSON-serialisable values.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import date, datetime
from typing import Any

log = logging.getLogger(__name__)


def iso_date(value: Any) -> str | None:
    """Dates from frontmatter or metadata as ISO 8601 strings; unparseable values are dropped."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    s = str(value).strip()
    for fmt in (
        "%Y-%m-%d",
        "%Y/%m/%d",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
        "%Y%m%d",
    ):
        try:
            return (
                datetime.strptime(s, fmt).date().isoformat()
                if fmt in ("%Y-%m-%d", "%Y/%m/%d", "%Y%m%d")
                else datetime.strptime(s, fmt).isoformat()
            )
        except ValueError:
            continue
    try:
        return datetime.fromisoformat(s.replace("Z", "+00:00")).isoformat()
    except ValueError:
        log.debug("unparseable date %r", value)
        return None


def access_groups(value: Any) -> list[str]:
    """``access: finance`` or ``access: [finance, hr]``: the groups, trimmed, deduplicated, sorted."""
    return sorted({g.strip() for g in as_list(value) if g.strip()})


def as_list(value: Any) -> list[str]:
    """A list of names from a list, or from a string separated by commas or spaces."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in re.split(r"[,\s]+", value) if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def jsonable(d: dict[str, Any]) -> dict[str, Any]:
    """``d`` with every value JSON-serialisable (dates and other objects as strings)."""
    return json.loads(json.dumps(_text_keys(d), default=str))


def _text_keys(value: Any) -> Any:
    """``value`` with every mapping key JSON takes: YAML reads ``2024-01-05: standup`` (a daily
    note's frontmatter) with a date for key, which ``json.dumps`` refuses whatever its ``default``."""
    if isinstance(value, dict):
        return {k if k is None or isinstance(k, (str, int, float)) else str(k): _text_keys(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_text_keys(v) for v in value]
    return value
