"""A PDF's bibliographic metadata: authors, year, DOI, subject and keywords.

Sources, best first: the document information dictionary (``/Author``, ``/Keywords``, a custom
``/DOI``), its XMP packet (``dc:creator``, ``dc:date``, ``dc:identifier``) and, for the DOI,
the first page's text, where journals print it. The year falls back to the file's creation
date, which for a downloaded paper is usually its publication year; a search that filters by
year (``--year-min``) then still finds the paper.
"""

from __future__ import annotations

import logging
import re
from typing import Any

log = logging.getLogger(__name__)

# a DOI as Crossref defines it: "10." registrant "/" suffix (no whitespace)
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>]+)", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")


def pdf_metadata(reader: Any, first_page: str) -> dict[str, Any]:
    """The metadata fields found in a ``pypdf.PdfReader``'s file; absent ones are left out."""
    info = reader.metadata
    xmp = _xmp(reader)
    out: dict[str, Any] = {}
    authors = _split_authors(str(info.author)) if info and info.author else []
    if not authors and xmp is not None:
        authors = [str(a).strip() for a in (xmp.dc_creator or []) if str(a).strip()]
    if authors:
        out["authors"] = authors
    year = _year(info, xmp)
    if year:
        out["year"] = year
    doi = _doi(info, xmp, first_page)
    if doi:
        out["doi"] = doi
    if info and info.subject and str(info.subject).strip():
        out["subject"] = str(info.subject).strip()
    if info and info.keywords:
        words = [w.strip() for w in re.split(r"[;,]", str(info.keywords)) if w.strip()]
        if words:
            out["keywords"] = words
    return out


def _xmp(reader: Any) -> Any:
    try:
        return reader.xmp_metadata
    except Exception as e:  # a malformed XMP packet costs its fields, not the document
        log.debug("XMP metadata unreadable: %s", e)
        return None


def _split_authors(raw: str) -> list[str]:
    """``"Smith, J.; Doe, A."`` and ``"Jane Smith, John Doe and Ann Lee"`` to one name each;
    ``"Smith, John"`` (one name, family first) stays whole."""
    raw = raw.strip()
    if ";" in raw:
        parts = raw.split(";")
    else:
        parts = re.split(r",\s*|\s+and\s+|\s*&\s*|、", raw)
        if any(" " not in p.strip() and not _is_cjk(p) for p in parts if p.strip()):
            parts = re.split(r"\s+and\s+|\s*&\s*", raw)  # "Smith, John": commas are inside names
    return [p.strip() for p in parts if p.strip()]


def _is_cjk(s: str) -> bool:
    return any("\u3040" <= ch <= "\u30ff" or "\u4e00" <= ch <= "\u9fff" for ch in s)


def _year(info: Any, xmp: Any) -> int | None:
    if xmp is not None:
        for d in xmp.dc_date or []:
            m = _YEAR.search(str(d))
            if m:
                return int(m.group(1))
    try:
        created = info.creation_date if info else None
    except Exception:  # an unparsable /CreationDate string
        created = None
    return created.year if created else None


def _doi(info: Any, xmp: Any, first_page: str) -> str | None:
    candidates: list[str] = []
    if info:
        candidates += [str(info.get(k)) for k in ("/DOI", "/doi", "/prism:doi") if info.get(k)]
    if xmp is not None:
        candidates += [str(x) for x in (xmp.dc_identifier or [])] if isinstance(xmp.dc_identifier, list) else []
        if isinstance(xmp.dc_identifier, str):
            candidates.append(xmp.dc_identifier)
    candidates.append(first_page[:3000])
    for text in candidates:
        m = _DOI.search(text)
        if m:
            return m.group(1).rstrip(".,;)]")
    return None
