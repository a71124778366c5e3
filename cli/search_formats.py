"""How a search report reads in each ``--format``: text, json, markdown, brief, citations.

Grouped results (``--group-by-document``) render per document in every format. Documents' own
metadata (frontmatter fields, a JSONL line's ``metadata``) is shown where a reader expects it:
authors, year, journal and DOI in markdown and in the citations, which follow an APA-like style
for papers and fall back to title, section and path for notes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from components.resilience.errors import QueryError

FORMATS = ("text", "json", "markdown", "brief", "citations")
#: file extension per output format (``--save``)
EXTENSIONS = {"text": "txt", "json": "json", "markdown": "md", "brief": "txt", "citations": "txt"}


def render(report: dict[str, Any], fmt: str) -> str:
    """The report in ``fmt``; warnings and (with ``--debug``) the debug block follow the results."""
    if fmt == "json":
        return json.dumps(report, ensure_ascii=False, indent=2, default=str)
    renderer = _RENDERERS.get(fmt)
    if renderer is None:
        raise QueryError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    lines = renderer(report)
    if not report["results"]:
        lines.append("No results.")
    lines += [f"warning: {w}" for w in report.get("warnings") or []]
    if report.get("debug"):
        lines.append(_debug_text(report))
    return "\n".join(lines).rstrip() + "\n"


# ---------------------------------------------------------------- per format
def _text(report: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for g in _documents(report):
        lines.append(f"Document [{g['rank']}]: Score {g['score']:.3f}  {g['title'] or 'unknown'}  ({g['source']})")
        lines.extend(
            f"    chunk {r['chunk'] or 'unknown'}, score {r['score']:.3f}: {_flat(r['text'], 160)}" for r in g["chunks"]
        )
    for r in [] if _grouped(report) else report["results"]:
        lines += [
            f"Result [{r['rank']}]: Score {r['score']:.3f}",
            f"  Content: {_flat(r['text'])}",
            f"  Source: {r['source'] or 'unknown'}",
            f"  Title: {r['title'] or 'unknown'}" + (f" ({_short_cite(r)})" if _short_cite(r) else ""),
            *([f"  Section: {_section(r)}"] if _section(r) else []),
            f"  Chunk {r['chunk'] or 'unknown'}" + (f" ({r['chunk_type']})" if r.get("chunk_type") else ""),
            "",
        ]
    return lines


def _markdown(report: dict[str, Any]) -> list[str]:
    lines = [f"## Search: {report['query'] or report.get('similar_to', '')}", "", _summary(report), ""]
    if _grouped(report):
        for g in _documents(report):
            first = g["chunks"][0]
            lines += [f"### {g['rank']}. {g['title'] or 'unknown'} (score {g['score']:.3f})", ""]
            about = _about(first)
            lines += [about, ""] if about else []
            for r in g["chunks"]:
                heading = f"**{_section(r)}** — " if _section(r) else ""
                lines += [f"> {heading}{_flat(r['text'], 600)}", ""]
            lines += [f"Source: `{g['source'] or 'unknown'}`", ""]
        return lines
    for r in report["results"]:
        about = _about(r)
        lines += [
            f"### {r['rank']}. {r['title'] or 'unknown'}{_dash(r)} (score {r['score']:.3f})",
            "",
            *([about, ""] if about else []),
            f"> {_flat(r['text'], 600)}",
            "",
            f"Source: `{r['source'] or 'unknown'}` · chunk {r['chunk'] or 'unknown'}"
            + (f" · tags: {', '.join(r['tags'])}" if r.get("tags") else ""),
            "",
        ]
    return lines


def _brief(report: dict[str, Any]) -> list[str]:
    if _grouped(report):
        lines = []
        for g in report["results"]:
            n, sections = len(g["chunks"]), ", ".join(dict.fromkeys(s for r in g["chunks"] if (s := _section(r))))
            chunks = f"{n} chunk{'s' if n != 1 else ''}" + (f": {sections}" if sections else "")
            cite = _short_cite(g["chunks"][0])
            title = f"{g['title'] or 'unknown'}" + (f" [{cite}]" if cite else "")
            lines.append(f"{g['rank']:>3}. {g['score']:.3f}  {title} ({chunks})")
        return lines
    return [
        f"{r['rank']:>3}. {r['score']:.3f}  {r['title'] or 'unknown'}"
        + (f" [{_short_cite(r)}]" if _short_cite(r) else "")
        + (f" › {_section(r)}" if _section(r) else "")
        for r in report["results"]
    ]


def _citations(report: dict[str, Any]) -> list[str]:
    """One reference per document, in rank order."""
    seen: dict[Any, dict[str, Any]] = {}
    for r in _chunk_rows(report):
        seen.setdefault(r.get("doc_id") or r.get("source"), r)
    return [f"[{i}] {citation(r)}" for i, r in enumerate(seen.values(), start=1)]


_RENDERERS = {"text": _text, "markdown": _markdown, "brief": _brief, "citations": _citations}


# ---------------------------------------------------------------- metadata
def citation(r: Mapping[str, Any]) -> str:
    """An APA-like reference from the document's metadata; for a note (no authors, journal or
    DOI): its title, section, path and date."""
    meta = r.get("metadata") or {}
    authors = _authors(meta.get("authors") or meta.get("author"))
    year = _year(meta) or _year({"date": r.get("created")})
    journal = meta.get("journal") or meta.get("venue") or meta.get("publisher")
    link = _link(meta) or (r.get("source") if str(r.get("source") or "").startswith("http") else None)
    title = r.get("title") or "unknown"
    if not (authors or journal or meta.get("doi")):
        dated = f", {r['created']}" if r.get("created") else ""
        return f"{title}{_dash(r)}. {r.get('source') or 'unknown'}{dated}"
    parts = [f"{authors or title}", f"({year or 'n.d.'})."]
    if authors:
        parts.append(f"{title}.")
    if journal:
        parts.append(f"*{journal}*.")
    if link:
        parts.append(link)
    return " ".join(parts)


def _about(r: Mapping[str, Any]) -> str:
    """The document's bibliographic line for markdown, empty for a note without such metadata."""
    meta = r.get("metadata") or {}
    collections = meta.get("collections")
    bits = [
        _authors(meta.get("authors") or meta.get("author")),
        _year(meta),
        meta.get("journal") or meta.get("venue"),
        _link(meta),
        meta.get("item_type"),
        ("collections: " + ", ".join(map(str, collections))) if isinstance(collections, list) and collections else None,
    ]
    return " · ".join(str(b) for b in bits if b)


def _short_cite(r: Mapping[str, Any]) -> str:
    """ "Karpukhin et al., 2020" for a paper (first author's family name, the year); "" for a note."""
    meta = r.get("metadata") or {}
    value = meta.get("authors") or meta.get("author")
    names = [str(v).strip() for v in value] if isinstance(value, list) else [str(value).strip()] if value else []
    names = [n for n in names if n]
    if not names:
        return ""
    family = [n.split(",")[0].strip() if "," in n else n.split()[-1] for n in names[:2]]
    who = family[0] if len(names) == 1 else f"{family[0]} & {family[1]}" if len(names) == 2 else f"{family[0]} et al."
    year = _year(meta)
    return f"{who}, {year}" if year else who


def _authors(value: Any) -> str:
    """APA's author list: family name and initials, "A, B, & C" (two: "A, & B")."""
    names = [str(v).strip() for v in value] if isinstance(value, list) else [str(value).strip()] if value else []
    names = [_apa_name(n) for n in names if n]
    if len(names) > 1:
        return ", ".join(names[:-1]) + ", & " + names[-1]
    return "".join(names)


def _apa_name(name: str) -> str:
    """ "Jane Q. Smith" to "Smith, J. Q."; a name already family-first ("Smith, J.") or written
    without spaces (山田太郎, an organisation's one word) stays as it is."""
    parts = name.split()
    if "," in name or len(parts) < 2:
        return name
    return f"{parts[-1]}, " + " ".join(f"{p[0]}." for p in parts[:-1])


def _year(meta: Mapping[str, Any]) -> str:
    for key in ("year", "date", "published", "created"):
        value = str(meta.get(key) or "")
        if len(value) >= 4 and value[:4].isdigit():
            return value[:4]
    return ""


def _link(meta: Mapping[str, Any]) -> str:
    doi = str(meta.get("doi") or "").strip()
    if doi:
        return doi if doi.startswith("http") else f"https://doi.org/{doi}"
    return str(meta.get("url") or "")


# ---------------------------------------------------------------- shared
def _summary(report: dict[str, Any]) -> str:
    n = len(report["results"])
    unit = "document" if _grouped(report) else "result"
    ms = (report.get("timings_ms") or {}).get("total")
    took = f" · {ms / 1000:.2f} s" if isinstance(ms, (int, float)) else ""
    return f"{n} {unit}{'s' if n != 1 else ''}{took}"


def _grouped(report: dict[str, Any]) -> bool:
    return any("chunks" in r for r in report["results"])


def _documents(report: dict[str, Any]) -> list[dict[str, Any]]:
    return list(report["results"]) if _grouped(report) else []


def _chunk_rows(report: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Chunk-level rows, whether or not the results are grouped by document."""
    for r in report["results"]:
        if "chunks" in r:
            yield from r["chunks"]
        else:
            yield r


def _flat(text: str, n: int = 300) -> str:
    s = " ".join(text.split())
    return s if len(s) <= n else s[: n - 1] + "…"


def _section(r: Mapping[str, Any]) -> str:
    """The chunk's heading path; "" for a record without headings (a JSONL abstract), which shows none."""
    return " > ".join(r.get("section_hierarchy") or [])


def _dash(r: Mapping[str, Any]) -> str:
    """ " — Section" after a title, or nothing when the chunk has no section."""
    section = _section(r)
    return f" — {section}" if section else ""


def _debug_text(report: dict[str, Any]) -> str:
    d = report["debug"]
    out = [
        "",
        "debug:",
        f"  collection {d.get('collection')}, vector size {d.get('vector_size')}, model {d.get('embedding_model')}",
        f"  retrievers answered: {', '.join(d.get('retrievers') or []) or 'none'}",
        *([f"  rerank: {d['rerank']}"] if d.get("rerank") else []),
        f"  qdrant filter: {json.dumps(d.get('qdrant_filter'), ensure_ascii=False)}",
        "  timings ms: " + ", ".join(f"{k} {v:.1f}" for k, v in (report.get("timings_ms") or {}).items()),
    ]
    for r in _chunk_rows(report):
        rs = r.get("retriever_scores") or {}
        ranks = ", ".join(f"{k} #{v} ({rs.get(k, 0):.3f})" for k, v in r["ranks"].items())
        own = " · ".join(f"{k} {rs[k]:.3f}" for k in ("rerank", "ranker", "relevance") if k in rs)
        out.append(f"  [{r['rank']}] {r['chunk_id']}: {ranks or 'reranked'}" + (f" · {own}" if own else ""))
    return "\n".join(out)
