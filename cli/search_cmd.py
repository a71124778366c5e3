"""``rag search`` / ``rag similar``: filters from options, output formats, the batch contract."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.search_formats import EXTENSIONS
from components.resilience.errors import QueryError

if TYPE_CHECKING:  # a command forwarded to `rag serve` loads neither
    from components.factory import Components
    from graph.context import Context

_WHERE = re.compile(r"^\s*([\w.\-]+)\s*(>=|<=|~=|=|>|<|:in=)\s*(.*?)\s*$")


def parse_where(expr: str) -> dict[str, Any]:
    """``key=value`` eq, ``key~=text`` contains, ``key:in=a,b`` any of, ``key>=3`` / ``<=`` / ``>`` / ``<`` range."""
    m = _WHERE.match(expr)
    if not m:
        raise QueryError(f"cannot read --where {expr!r}: use key=value, key~=text, key:in=a,b or key>=number")
    key, op, raw = m.groups()
    if op == "=":
        return {"key": key, "op": "eq", "value": _scalar(raw)}
    if op == "~=":
        return {"key": key, "op": "contains", "value": raw}
    if op == ":in=":
        return {"key": key, "op": "in", "value": [_scalar(v) for v in raw.split(",") if v.strip()]}
    bound = {">=": "gte", "<=": "lte", ">": "gt", "<": "lt"}[op]
    return {"key": key, "op": "range", bound: _scalar(raw)}


def _scalar(raw: str) -> Any:
    for cast in (int, float):
        try:
            return cast(raw)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(raw.lower(), raw)


def build_filters(
    *,
    vault: Sequence[str] = (),
    tag: Sequence[str] = (),
    date_from: str | None = None,
    date_to: str | None = None,
    source: str | None = None,
    source_prefix: str | None = None,
    section: str | None = None,
    lang: str | None = None,
    doc_id: Sequence[str] = (),
    where: Sequence[str] = (),
    year_min: int | None = None,
    year_max: int | None = None,
    collections: Sequence[str] = (),
    item_types: Sequence[str] = (),
    chunk_types: Sequence[str] = (),
) -> dict[str, Any]:
    """The filters of the CLI's options; the paper-query options are ``where`` conditions on the
    document's metadata (``metadata.year``, ``metadata.collections``, ``metadata.item_type``)."""
    conditions = [parse_where(w) for w in where]
    if year_min is not None or year_max is not None:
        bounds = {"gte": year_min, "lte": year_max}
        conditions.append({"key": "metadata.year", "op": "range", **{k: v for k, v in bounds.items() if v is not None}})
    if collections:
        conditions.append({"key": "metadata.collections", "op": "in", "value": list(collections)})
    if item_types:
        conditions.append({"key": "metadata.item_type", "op": "in", "value": list(item_types)})
    f: dict[str, Any] = {
        "vaults": list(vault) or None,
        "tags": list(tag) or None,
        "created_from": date_from,
        "created_to": date_to,
        "source": source,
        "source_prefix": source_prefix,
        "section": section,
        "language": lang,
        "doc_ids": list(doc_id) or None,
        "chunk_types": [t.strip() for v in chunk_types for t in v.split(",") if t.strip()] or None,
        "where": conditions,
    }
    return {k: v for k, v in f.items() if v not in (None, [])}


def search_request(
    payload: dict[str, Any], collection: str | None, groups: Sequence[str] = (), min_score: float | None = None
) -> dict[str, Any]:
    """The arguments of a ``search`` sent to `rag serve`: ``run_search``'s, by name."""
    return {"payload": payload, "collection": collection, "groups": list(groups), "min_score": min_score}


async def run_search(
    graph: Any,
    payload: dict[str, Any],
    collection: str | None,
    groups: Sequence[str] = (),
    min_score: float | None = None,
    *,
    context: Context | None = None,
) -> dict[str, Any]:
    """One search through the compiled graph. ``context``: the run's other knobs (fusion,
    retrievers ...); the collection, groups and minimum given here replace its own."""
    from graph.context import Context

    t0 = time.perf_counter()
    ctx = dataclasses.replace(context or Context(), collection=collection or "", access_groups=tuple(groups))
    if min_score is not None:
        ctx = dataclasses.replace(ctx, min_score=min_score)
    out: dict[str, Any] = await graph.ainvoke({"mode": "search", **payload}, context=ctx)
    timings = dict(out.get("timings_ms") or {})
    timings["total"] = (time.perf_counter() - t0) * 1000
    out["timings_ms"] = {k: round(v, 2) for k, v in timings.items()}
    return out


def search(
    c: Components,
    payload: dict[str, Any],
    collection: str | None,
    groups: Sequence[str] = (),
    min_score: float | None = None,
) -> dict[str, Any]:
    from graph.rag import build_rag_graph

    graph = build_rag_graph(c)
    out = asyncio.run(run_search(graph, payload, collection, groups, min_score))
    return report_of(out, payload)


def report_of(out: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    """What every format renders: the query, results, total, timings, filters, warnings (and debug)."""
    report = {
        "query": payload.get("question") or "",
        "results": out.get("results") or [],
        "total": out.get("total", 0),
        "timings_ms": out.get("timings_ms"),
        "filters": payload.get("filters") or {},
        "warnings": out.get("warnings") or [],
    }
    if payload.get("similar_to"):
        report["similar_to"] = payload["similar_to"]
    if out.get("debug_info"):
        report["debug"] = out["debug_info"]
    return report


# ---------------------------------------------------------------- save
def save(text: str, fmt: str, data_dir: Path) -> Path:
    """Keep a rendered search as ``DATA_DIR/query_results/query_<time>.<ext>`` and ``latest.<ext>``.

    Each file is written whole to a temporary name and renamed, so a reader of ``latest.*`` never
    sees half a result.
    """
    folder = data_dir / "query_results"
    folder.mkdir(parents=True, exist_ok=True)
    ext = EXTENSIONS[fmt]
    path = folder / f"query_{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}.{ext}"
    for target in (path, folder / f"latest.{ext}"):
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    return path


# ---------------------------------------------------------------- batch
async def rank_documents(
    graph: Any,
    text: str,
    *,
    k: int,
    filters: dict[str, Any] | None = None,
    collection: str | None = None,
    groups: Sequence[str] = (),
    context: Context | None = None,
) -> list[dict[str, Any]]:
    """The batch contract's ranking for one query: up to ``k`` distinct documents, each at its
    best chunk, as ``rag search --batch`` writes them. Benchmarks rank through this too, so what
    they measure is what the command does.

    Rankings keep their depth (no minimum score): a metric such as nDCG@k expects k documents, and
    the minimum would cost SciFact train 0.012 nDCG@10 (docs/decisions/0014). Each retriever is
    asked for 5·k chunks (at least ``Context.candidates``), so that k documents remain after
    grouping; only the chunks of those k documents are scored.
    """
    from graph.context import Context

    ctx = context or Context()
    ctx = dataclasses.replace(ctx, candidates=max(ctx.candidates, min(1000, 5 * k)))
    payload = {"question": text, "top_k": k, "filters": filters or {}, "group_by_document": True}
    out = await run_search(graph, payload, collection, groups, min_score=0.0, context=ctx)
    return [
        {
            "doc_id": g["doc_id"],
            "chunk_id": g["chunks"][0]["chunk_id"],
            "score": round(g["score"], 6),
            "rank": g["rank"],
        }
        for g in (out.get("results") or [])[:k]
    ]


def read_queries(queries_file: Path) -> list[tuple[str, str]]:
    """The batch's ``{"_id", "text"}`` lines as (id, text); a bad line is a QueryError naming it."""
    out = []
    for n, line in enumerate(queries_file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
            out.append((q["_id"], q["text"]))
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise QueryError(f"{queries_file}:{n}: expected a JSON object with _id and text ({e})") from e
    return out


def batch(
    c: Components,
    queries_file: Path,
    *,
    k: int,
    filters: dict[str, Any],
    collection: str | None,
    groups: Sequence[str] = (),
) -> int:
    """The evaluation contract: one JSON line per query with up to k distinct documents (``rank_documents``)."""
    from graph.rag import build_rag_graph

    graph = build_rag_graph(c)
    queries = read_queries(queries_file)

    async def run_all() -> None:
        for qid, text in queries:
            docs = await rank_documents(graph, text, k=k, filters=filters, collection=collection, groups=groups)
            sys.stdout.write(json.dumps({"query_id": qid, "results": docs}, ensure_ascii=False) + "\n")

    asyncio.run(run_all())
    sys.stdout.flush()
    return len(queries)
